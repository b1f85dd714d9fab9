"""Every error formatkit raises for a caller to catch, in one place. Bad *content* never raises (it
becomes Issues in a report); these are for callers::

    from formatkit.errors import InvalidFileError
    try:
        records = list(iter_records("set.xlsx"))
    except InvalidFileError as exc:
        print(exc.report.errors)

FormatkitError
├── UnreadablePathError     a path that is missing, a directory, or not readable (CLI exit 2)
├── RepairError             ``fix`` could not open a file validate reads; ``.source``, ``.output``
│   └── RepairRefusedError  a workbook past the bounds fix rewrites; ``.why`` names the range or count
├── InvalidFileError        a file whose records were asked for has errors; ``.report``
│   └── SheetReadBackError  the workbook ``export_excel`` would write does not read back; ``.mode``
└── OutputError             an output could not be written (nothing partial is left behind)
    └── OutputBusyError     another process is writing the same output; ``.pid``
SmallFileError              (ValueError) a side file (``--dimensions``, a judge template) that is not a
                            small regular file
"""

from formatkit._core.errors import (
    FormatkitError,
    InvalidFileError,
    OutputBusyError,
    OutputError,
    RepairError,
    RepairRefusedError,
    SheetReadBackError,
    SmallFileError,
    UnreadablePathError,
)

__all__ = [
    "FormatkitError",
    "InvalidFileError",
    "OutputBusyError",
    "OutputError",
    "RepairError",
    "RepairRefusedError",
    "SheetReadBackError",
    "SmallFileError",
    "UnreadablePathError",
]
