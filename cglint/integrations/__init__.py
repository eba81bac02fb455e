"""cglint inside other tools: a language server for editors, and a flake8 plugin."""
