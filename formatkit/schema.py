"""The JSON Schemas of the file formats and of the validation report (``formatkit schema``).

:data:`SCHEMA_NAMES` lists them; :func:`build_schema` gives one as a dict, :func:`render` as the text of
its file, :func:`write_all` regenerates every file in a folder.
"""

from formatkit._api.schema import SCHEMA_NAMES, build_schema, render, write_all

__all__ = ["SCHEMA_NAMES", "build_schema", "render", "write_all"]
