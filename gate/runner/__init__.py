"""``sourcegate run``: the agent under test run once per case against the frozen web.

:mod:`gate.runner.plan` decides what runs (pure), :mod:`gate.runner.scope` collects what the
replay server answered each case, :mod:`gate.runner.assemble` turns a finished case into its
trace (pure), :mod:`gate.runner.process` runs the commands (each under a
:mod:`gate.runner.keeper` on Linux, their output kept within :mod:`gate.runner.output`'s bounds),
:mod:`gate.runner.owners` refuses a request that crosses from one case to another,
:mod:`gate.runner.network` decides whether each agent's network ends at the replay server (Linux:
the keeper makes a namespace, :mod:`gate.runner.netns`, which :mod:`gate.runner.doors` serves, its
DNS look-ups read by :mod:`gate.runner.dns`), :mod:`gate.runner.orchestrate` ties them together, and
:mod:`gate.checks.run_findings` says what the gate reports of it.
"""
