"""The domain model, the error root, Markdown parsing and redaction: no I/O."""
