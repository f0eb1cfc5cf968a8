// Module ShellPlugin: see README.md (Layout) for what it is for.
