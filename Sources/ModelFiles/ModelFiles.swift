// ModelFiles: see README.md in this folder.
