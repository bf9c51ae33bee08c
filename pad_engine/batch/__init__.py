"""Whole files and folders: converting a file's sentences, folders on local processes or Dask."""
