"""codemods package."""
