// Module TagRouter: see README.md (Layout) for what it is for.
