// Workbench: see README.md in this folder.
