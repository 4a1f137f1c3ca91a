"""Export approved memories for tools without Engram, and read an export bundle back.

`collect` picks the approved bytes (collect.py), `render` writes the four formats and marks
each file as ours (render.py; `is_generated` tells any reader of guidance files which files
are exports), `bundle` turns a JSON bundle back into candidates for the proposal path.
"""
