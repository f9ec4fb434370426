"""The triggers tests' workload: jobs that write to a table without a unique constraint."""
