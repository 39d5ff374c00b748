// Layers: see README.md in this folder.
