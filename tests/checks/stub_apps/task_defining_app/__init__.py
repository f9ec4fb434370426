"""An app that defines a django.tasks task (read as text by W041's code scan, never run)."""
