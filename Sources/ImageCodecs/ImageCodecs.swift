// ImageCodecs: see README.md in this folder.
