"""Tests of horizontal/checks/: ``horizontal/checks/<module>.py`` is tested in
``tests/checks/test_<module>.py`` (the package's ``__init__`` in ``test_init.py``), a
feature's checks included: the storage checks are here, not in tests/storage/.

``baseline.py`` holds SHARED, the configuration with nothing single-instance in it that
the settings-check tests start from; ``backends.py`` the project subclasses the checks
must see through; ``settings_modules/`` the settings modules W050 reads;
``stub_apps/`` importable stand-ins for the scheduler apps the checks look for.
``test_docs.py`` keeps docs/checks.md in step with every id every module can emit.
"""
