"""The validation rules: ``common`` for what every shape shares, one module per file shape."""
