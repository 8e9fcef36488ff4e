"""hotplate: an orchestration engine for Heat Orchestration Templates."""

__version__ = "0.1.0"
