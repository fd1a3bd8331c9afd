"""drums-gym: Gymnasium environments over Drums desktops."""

__version__ = "0.1.0"
