"""Dead-symbol patterns of the bundled recipes, importable without loading them.

`codemod check` runs as a pre-commit hook on every commit; reading the
pattern from here spares it the recipe machinery's import time.
"""

# mlxcel #2230's acceptance pattern for cleanup (a): `rg -n PATTERN src/` must print nothing.
PAGED_COMPAT_PATTERN = (
    r"paged_decode_attention_(dense|rotating)_(compat|fallback)"
    r"|PagedDecodeMetadata"
    r"|validate_(rotating_)?paged_decode_inputs"
)

# Recipe id -> (pattern, folders searched under ROOT).
DEAD_SYMBOLS = {
    "paged-compat-removal": (PAGED_COMPAT_PATTERN, ("src",)),
}
