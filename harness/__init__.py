"""The harness: command line, reports, parallel execution."""
