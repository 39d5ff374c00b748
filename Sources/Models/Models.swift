// Models: see README.md in this folder.
