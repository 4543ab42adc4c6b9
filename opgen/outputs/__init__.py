"""What commands write: the output tree (`tree_writer`: compare, journal, commit atomically),
its unified diff (`diff_writer`, `opgen build --diff`), depfiles (`depfile`) and the check
that `-o`/`--depfile` replace no input (`written_files`).
"""
