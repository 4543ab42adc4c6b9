"""Override files (OpGenOverride and ApiDef text protos) read into the per-op ApiDef model:
`load` (directories and layers -> `ApiModel`), `files` (one file, either format),
`merge` (several files on one op), `apidef` (the model).
"""
