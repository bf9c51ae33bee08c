"""Whole files and folders: converting a file's sentences (``files``), and folders on local
processes or Dask (``folders.convert_folder``, over the modules of each job beside it)."""
