// Module PN532Sim: see README.md (Layout) for what it is for.
