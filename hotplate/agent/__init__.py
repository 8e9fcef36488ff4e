"""The in-instance side: ``hotplate agent-hook``, the hook runner os-collect-config runs.

os-collect-config polls a server's metadata (for hotplate, CFN
``DescribeStackResource`` of a DeployedServer) and, when it changed, runs
its ``command`` with ``OS_CONFIG_FILES`` naming the collectors' cached JSON
files. ``hotplate agent-hook`` is that command. It keeps heat-config's
contract (heat-agents' ``55-heat-config``, ``hook-script.py`` and
``heat-config-notify``):

- the files are deep-merged as os-apply-config merges them and their
  ``deployments`` list is taken, each item one deployment as Heat pushes it
  (id, name, group, inputs, outputs, options, config);
- group ``script`` runs the config as an executable, its inputs as
  environment variables, its outputs read back from
  ``$heat_outputs_path.<name>``; any other group runs the heat-config hook
  of that name when one is installed (``HEAT_CONFIG_HOOKS``,
  ``/usr/libexec/heat-config/hooks``, ``/var/lib/heat-config/hooks``) and is
  skipped with an error logged when none is (``os-apply-config`` and
  ``Heat::Ungrouped`` silently), never signalled;
- the outcome (``deploy_stdout``, ``deploy_stderr``, ``deploy_status_code``
  and the outputs) goes back through the deployment's signal transport.

What it adds to heat-config, which marks a deployment done before its hook
runs and forgets a signal that failed: a hook killed mid-run is signalled
FAILED on the next run (never run again), and a signal that could not be
delivered is kept and sent again on the next run. The state directory
(``--state-dir``, default ``/var/lib/heat-config``) holds::

    deployed/<id>.json         the deployment as it ran (heat-config's own layout)
    deployed/<id>.notify.json  what was signalled for it
    running/<id>.json          written before a hook starts, removed once its outcome is kept
    outbox/<id>.json           a signal not delivered yet
    script/<id>                a script deployment's executable (its working directory: script/)
    outputs/<id>.<name>        its output files

A deployment runs again only when its id is new or the deployment under that
id changed (group, config, inputs, options or outputs): Heat gives each new
deployment action a new derived config, hence a new id.

Exit status: 0 when everything is done (a failed script included: its failure
was signalled), 1 when something is left to retry (an undelivered signal, an
unreadable metadata file), so that os-collect-config keeps the metadata
uncommitted and runs the hook again on its next poll; 2 for a usage error.

This package imports the standard library only, nothing of hotplate's
engine: it runs on servers, on every metadata change.
"""
