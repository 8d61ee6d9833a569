"""The Python plug-in: items deleted through libcst (`items`) and the operations the registry
calls (`language`)."""
