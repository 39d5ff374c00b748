// Labeling: see README.md in this folder.
