"""The ``onnxcraft`` command (``python -m onnxcraft``): one module per subcommand in
:mod:`onnxcraft.cli.commands`, listed in :data:`onnxcraft.cli.registry.COMMANDS`."""
