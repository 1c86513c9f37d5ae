"""Files read and written safely: every read bounded and strict, every write atomic.

``paths`` finds the root of every read; ``jsonio`` reads JSON and YAML within their limits, strictly,
and validates them against the schemas; ``shapes`` compiles a schema once into plain checks;
``jsontext`` writes indented JSON text; ``outputs`` writes every file the gate produces (atomic for
files, direct for devices and FIFOs). The limits are in docs/trust.md.
"""
