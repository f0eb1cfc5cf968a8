// Module NDEF: see README.md (Layout) for what it is for.
