// Module ExecPlugin: see README.md (Layout) for what it is for.
