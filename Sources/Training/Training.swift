// Training: see README.md in this folder.
