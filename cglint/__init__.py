"""cglint: find TensorFlow 1.8 custom-gradient hazards before they run."""
__version__ = "0.1.0"
