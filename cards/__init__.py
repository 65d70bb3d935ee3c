"""Dataset and metric card templates (Jinja2 + YAML), shipped as package data."""
