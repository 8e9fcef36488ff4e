"""``/stacks/arn:openstack:heat::<tenant>:stacks/<name>/<id>[/<path>]``: Heat's ARN lookup.

A template resource's reference is its nested stack's ARN, and clients use
it as a stack id (heatclient puts it in the URL as it is). Heat redirects
such a URL to the stack's canonical one, keeping the path under the stack
and the query; so does this. A text that is not a Heat ARN is looked up as
a stack name, which answers Heat's 404.
"""

from __future__ import annotations

import re
from urllib.parse import urlencode

from fastapi import APIRouter
from starlette.requests import Request
from starlette.responses import Response

from hotplate.api import views
from hotplate.api.calls import identify

router = APIRouter(prefix="/v1/{project_id}")

_STACK_PATH = re.compile(r"stacks/([^/]+)/([^/]+)(.*)")


def parse_arn(arn: str) -> dict[str, str] | None:
    """A Heat stack ARN's identity (tenant, stack_name, stack_id, path); None if not one."""
    fields = arn.split(":")
    if len(fields) < 6 or fields[0].lower() != "arn" or fields[1:3] != ["openstack", "heat"]:
        return None
    found = _STACK_PATH.match(":".join(fields[5:]))
    if found is None:
        return None
    return {"tenant": fields[4], "stack_name": found.group(1), "stack_id": found.group(2),
            "path": found.group(3)}


async def lookup_arn(request: Request, project_id: str, rest: str) -> Response:
    arn = f"arn:{rest}"
    identity = parse_arn(arn)
    path = ""
    if identity is None:
        identity = await identify(request, project_id, arn)
    else:
        path = identity["path"]
    location = views.stack_url(request, identity, path)
    if request.url.query:
        location += "?" + urlencode(request.query_params.multi_items())
    return Response(status_code=302, headers={"Location": location})


# One route per method, so that each has its own operation id in /openapi.json.
for _method in ("GET", "POST", "PUT", "PATCH", "DELETE"):
    router.add_api_route("/stacks/arn:{rest:path}", lookup_arn, methods=[_method],
                         name=f"lookup_arn_{_method.lower()}")
