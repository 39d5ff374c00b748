// Datasets: see README.md in this folder.
