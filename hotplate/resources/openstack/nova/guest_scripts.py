"""The small programs a server's boot data carries for cloud-init, as Heat's boot data does.

cloud-init ignores MIME parts of a type it has no handler for, and the parts Heat
sends a server (``x-cfninitdata``: the user data as ``cfn-userdata``, the
metadata as ``cfn-init-data``, the metadata server's address, boto's settings)
are of such a type. So the boot data also carries:

- a part handler (``text/part-handler``), which cloud-init runs for each such
  part: it writes the part into ``/var/lib/heat-cfntools/`` (mode 0700) and
  ``/var/lib/cloud/data/``, where heat-cfntools and os-collect-config's local
  collectors read them;
- a boothook (``text/cloud-boothook``) asking heat-cfntools, where installed
  from a package, for its ``/opt/aws/bin`` links; it never fails the boot;
- for ``HEAT_CFNTOOLS`` only, a user script (``text/x-shellscript``) that runs
  ``cfn-userdata`` once cloud-init has written every part, logging to
  ``/var/log/heat-provision.log`` and touching
  ``/var/lib/heat-cfntools/provision-finished`` when it succeeded: the user
  data of a server in Heat's default format is a program that runs at boot.

They are hotplate's own, written for the same paths and files heat-cfntools
images expect.
"""

from __future__ import annotations

PART_HANDLER = '''\
#part-handler
# Writes each text/x-cfninitdata part of the boot data where heat-cfntools and
# os-collect-config read it.
import datetime
import os

TARGETS = ("/var/lib/heat-cfntools", "/var/lib/cloud/data")
LOG = "/var/log/part-handler.log"


def list_types():
    return ["text/x-cfninitdata"]


def handle_part(data, ctype, filename, payload):
    if ctype == "__begin__":
        for target in TARGETS:
            if not os.path.isdir(target):
                os.makedirs(target, 0o700)
        return
    if ctype != "text/x-cfninitdata" or not filename:
        return
    name = os.path.basename(filename)
    with open(LOG, "a") as log:
        log.write("%s filename:%s, ctype:%s\\n" % (datetime.datetime.now(), name, ctype))
    for target in TARGETS:
        path = os.path.join(target, name)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as out:
            out.write(payload)
'''

BOOTHOOK = '''\
#!/bin/sh
# heat-cfntools installed from a package may lack its /opt/aws/bin links.
cfn-create-aws-symlinks >/dev/null 2>&1 || true
exit 0
'''

RUN_USERDATA = '''\
#!/bin/sh
# Runs the stack's user data (cfn-userdata, written by the part handler), logging
# to /var/log/heat-provision.log; marks provision-finished when it succeeded.
dir=/var/lib/heat-cfntools
log=/var/log/heat-provision.log
touch "$log" && chmod 600 "$log"
[ -s "$dir/cfn-userdata" ] || { echo "Userdata empty: nothing to run" >> "$log"; exit 0; }
chmod 700 "$dir/cfn-userdata"
echo "Provision began: $(date)" >> "$log"
"$dir/cfn-userdata" >> "$log" 2>&1
status=$?
echo "Provision done: $(date)" >> "$log"
if [ "$status" -ne 0 ]; then
    echo "Provision failed with exit code $status" >> "$log"
    exit "$status"
fi
touch "$dir/provision-finished"
'''
