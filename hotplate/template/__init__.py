"""template layer."""
