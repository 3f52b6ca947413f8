from . import _2024_12  # openhip vendors only revision 2024.12 (see ORIGIN.md)
