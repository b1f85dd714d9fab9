"""The runner: ``run_file`` (a whole run in one call), ``job`` (journal, resume, output), ``runner``
(records and turns), ``requests`` (records to requests and back), ``journal``, ``lock``, ``progress``."""
