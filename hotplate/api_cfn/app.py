"""The CFN-compatible API: signals, wait conditions and DescribeStackResource.

heat-api-cfn's paths, as agents call them unchanged:

- ``POST|PUT /v1/signal/<arn>``: ``resource_signal`` with the JSON body
  (cfn-signal, curl on a pre-signed URL); 200.
- ``POST|PUT /v1/waitcondition/<arn>``: the same with ``sync_call``; answers
  ``{"resource": <name>, "metadata": ...}``.
- ``GET|POST /v1/?Action=DescribeStackResource&StackName=..&LogicalResourceId=..``:
  the resource's detail in heat-api-cfn's XML, ``Metadata`` a JSON string
  (os-collect-config's cfn source).

Every request is signed (EC2 SigV2 or SigV4) with a stack user's key: the
key is looked up (``KeyLookup``, the stack-user store) and the signature
checked against its secret before anything else; a key may only signal
its own resource, and describe the resources of its own stack that the
engine finds its resource allows (Heat's ``access_allowed``: its own, or an
``AWS::IAM::User``'s policies'; the key travels in the context's
``aws_creds``, as Heat's). A key Keystone holds (Keystone
mode: a stack domain user's EC2 credential) is checked by Keystone's
``ec2tokens`` instead (``Ec2Check``), and refused when the API has no
Keystone to ask; hotplate's own keys (the standalone mode's, and those of
stacks made before Keystone mode was switched on) are checked here as ever.
Refusals are heat-api-cfn's 403s, and nothing reaches the engine. The engine
is reached through RPC only, as the stack user's project.

A signal may carry CloudFormation's ``ClientRequestToken`` (a query
parameter): signals repeated with the same token are applied once and
answered alike; the same token with another signal is AWS's
``TokenAlreadyExistsException`` (400), and a token whose first signal is
still being applied a 503 to ask again. (Of the CloudFormation actions that
take the token, CreateStack, UpdateStack, DeleteStack, ..., this API serves
none: stacks are driven through the orchestration API and its
Idempotency-Key.)
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Mapping
from typing import Any, Protocol
from urllib.parse import parse_qsl, unquote
from xml.etree import ElementTree

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from hotplate.api_cfn.errors import (
    ACCESS_DENIED,
    IN_PROGRESS,
    INTERNAL,
    INVALID_ACTION,
    INVALID_PARAMETER,
    INVALID_PARAMETER_ERRORS,
    MISSING_AUTH,
    MISSING_PARAMETER,
    NOT_FOUND,
    SIGNATURE_MISMATCH,
    TOKEN_EXISTS,
    CfnError,
)
from hotplate.model.ec2_signature import SignedRequest, access_key_id, verify
from hotplate.model.errors import (
    EntityNotFound,
    Forbidden,
    HotplateError,
    RequestIdReused,
    RequestInProgress,
)
from hotplate.model.stack_users import StackUserKey
from hotplate.rpc.errors import RemoteError
from hotplate.rpc.requests import WRITES, keyed_request_id

_ARN = re.compile(r"^arn:openstack:heat::([^:]*):stacks/([^/]+)/([^/]+)/resources/(.+)$")
_TOKEN = re.compile(r"^[a-zA-Z0-9-]{1,128}$")
JSON_ONLY_KEYS = frozenset({"Metadata"})


class EngineCalls(Protocol):
    """The engine topic, as ``hotplate.api.EngineRpc`` calls it."""

    def call(self, ctxt: Mapping[str, Any], method: str, **kwargs: Any) -> Any: ...


class Ec2Check(Protocol):
    """Keystone's ec2tokens (``hotplate.cloud.ec2tokens.Ec2Tokens``)."""

    def check(self, *, access: str, signature: str, host: str, verb: str, path: str,
              params: Mapping[str, str], headers: Mapping[str, str], body: bytes) -> Any: ...


class KeyLookup(Protocol):
    """The stack users' keys (db/stack_users.py), injected as the token store is."""

    def find_stack_user_key(self, access_key: str) -> StackUserKey | None: ...


def _params(request: Request, body: bytes) -> dict[str, str]:
    """The query's parameters, and a form body's (boto's CloudFormation client POSTs them)."""
    params = dict(request.query_params)
    if request.headers.get("content-type", "").startswith("application/x-www-form-urlencoded"):
        params.update(parse_qsl(body.decode("utf-8", "replace"), keep_blank_values=True))
    return params


def _signed(request: Request, body: bytes) -> SignedRequest:
    return SignedRequest(
        verb=request.method, host=request.headers.get("host", ""),
        path=unquote(request.url.path), params=_params(request, body),
        headers=dict(request.headers), body=body,
        raw_path=request.scope.get("raw_path", b"").decode("latin-1") or None)


async def _authenticate(request: Request, body: bytes) -> StackUserKey:
    """The key that signed ``request``; a CfnError (403) for anything else."""
    signed = _signed(request, body)
    access = access_key_id(signed)
    if access is None:
        raise CfnError(MISSING_AUTH)
    keys: KeyLookup = request.app.state.keys
    key = await run_in_threadpool(keys.find_stack_user_key, access)
    if key is None:
        raise CfnError(MISSING_AUTH)
    if key.keystone_held:
        await _keystone_check(request, signed, access)
    elif not verify(key.secret, signed):
        raise CfnError(SIGNATURE_MISMATCH)
    return key


async def _keystone_check(request: Request, signed: SignedRequest, access: str) -> None:
    """Keystone checks a signature by a key it holds (Heat's ``EC2Token``)."""
    from hotplate.cloud.ec2tokens import Ec2Refused

    checker: Ec2Check | None = getattr(request.app.state, "ec2tokens", None)
    signature = _signature(signed)
    if checker is None or not signature:
        raise CfnError(SIGNATURE_MISMATCH if checker is not None else ACCESS_DENIED)
    try:
        await run_in_threadpool(
            checker.check, access=access, signature=signature, host=signed.host,
            verb=signed.verb, path=signed.path, params=signed.params,
            headers=signed.headers, body=signed.body)
    except Ec2Refused:
        raise CfnError(ACCESS_DENIED) from None


def _signature(signed: SignedRequest) -> str | None:
    """The signature sent: ``Signature``, ``X-Amz-Signature`` or SigV4's header."""
    found = signed.params.get("Signature") or signed.params.get("X-Amz-Signature")
    if found is None:
        auth = signed.headers.get("authorization") or signed.headers.get("Authorization")
        if auth and "Signature=" in auth:
            found = auth.partition("Signature=")[2].split(",")[0]
    return found


def _context(key: StackUserKey, token: str | None = None) -> dict[str, Any]:
    """The stack user's context; with a ClientRequestToken, the request id of that token
    (within the project), so that a repeated request is done once (rpc/requests.py)."""
    request_id = f"req-{uuid.uuid4()}" if token is None else keyed_request_id(
        key.project, f"cfn:{token}")
    return {"user_id": f"stack-user-{key.access_key}", "username": key.resource_name,
            "project_id": key.project, "tenant": key.project, "tenant_id": key.project,
            "is_admin": False, "roles": ["heat_stack_user"], "request_id": request_id,
            "aws_creds": json.dumps({"ec2Credentials": {"access": key.access_key}})}


def _token(request: Request) -> str | None:
    """CloudFormation's ClientRequestToken (a query parameter), checked as AWS does:
    1 to 128 characters of letters, digits and hyphens."""
    token = request.query_params.get("ClientRequestToken")
    if token is not None and not _TOKEN.match(token):
        raise CfnError(INVALID_PARAMETER, "ClientRequestToken must be 1 to 128 letters, "
                       "digits or hyphens")
    return token


def _identity(key: StackUserKey) -> dict[str, str]:
    return {"tenant": key.project, "stack_name": key.stack_name, "stack_id": key.stack_id,
            "path": ""}


async def _call(request: Request, key: StackUserKey, method: str, **kwargs: Any) -> Any:
    rpc: EngineCalls = request.app.state.rpc
    token = _token(request) if method in WRITES else None
    try:
        return await run_in_threadpool(rpc.call, _context(key, token), method, **kwargs)
    except Forbidden:
        raise CfnError(ACCESS_DENIED) from None
    except EntityNotFound as exc:
        raise CfnError(NOT_FOUND, str(exc)) from None
    except RequestIdReused as exc:
        raise CfnError(TOKEN_EXISTS, str(exc)) from None
    except RequestInProgress as exc:
        raise CfnError(IN_PROGRESS, str(exc)) from None
    except HotplateError as exc:
        raise CfnError(INVALID_PARAMETER, str(exc)) from None
    except RemoteError as exc:
        if exc.exc_type not in INVALID_PARAMETER_ERRORS:
            raise
        raise CfnError(INVALID_PARAMETER, exc.message) from None


def _arn_resource(arn: str, key: StackUserKey) -> None:
    """Refuse an ARN that is not the key's own resource."""
    found = _ARN.match(unquote(arn))
    if found is None:
        raise CfnError(INVALID_PARAMETER, f'"{unquote(arn)}" is not a valid Heat ARN')
    _tenant, stack_name, stack_id, resource_name = (unquote(g) for g in found.groups())
    if (stack_id != key.stack_id or stack_name != key.stack_name
            or resource_name != key.resource_name):
        raise CfnError(ACCESS_DENIED)


def _details(body: bytes) -> Any:
    if not body.strip():
        return None
    try:
        return json.loads(body)
    except ValueError:
        raise CfnError(INVALID_PARAMETER, "the body is not JSON") from None


async def signal(request: Request) -> Response:
    try:
        body = await request.body()
        key = await _authenticate(request, body)
        _arn_resource(request.path_params["arn"], key)
        await _call(request, key, "resource_signal", stack_identity=_identity(key),
                    resource_name=key.resource_name, details=_details(body))
        return JSONResponse(None)
    except CfnError as exc:
        return exc.response()


async def waitcondition(request: Request) -> Response:
    try:
        body = await request.body()
        key = await _authenticate(request, body)
        _arn_resource(request.path_params["arn"], key)
        metadata = await _call(request, key, "resource_signal", stack_identity=_identity(key),
                               resource_name=key.resource_name, details=_details(body),
                               sync_call=True)
        return JSONResponse({"resource": key.resource_name, "metadata": metadata})
    except CfnError as exc:
        return exc.response()


def _element(parent: ElementTree.Element, obj: Any) -> None:
    """heat's XMLResponseSerializer: dict keys become elements, lists ``member``s."""
    if isinstance(obj, list):
        for item in obj:
            _element(ElementTree.SubElement(parent, "member"), item)
    elif isinstance(obj, Mapping):
        for name, value in obj.items():
            child = ElementTree.SubElement(parent, name)
            if name in JSON_ONLY_KEYS:
                if value:
                    child.text = json.dumps(value)
            else:
                _element(child, value)
    else:
        parent.text = "" if obj is None else str(obj)


def stack_resource_detail(resource: Mapping[str, Any], project: str) -> dict[str, Any]:
    """heat-api-cfn's StackResourceDetail of an engine resource view."""
    ident = resource.get("stack_identity") or {}
    stack_arn = (f"arn:openstack:heat::{ident.get('tenant', project)}:stacks/"
                 f"{ident.get('stack_name', '')}/{ident.get('stack_id', '')}")
    return {
        "Description": resource.get("description", ""),
        "LastUpdatedTimestamp": resource.get("updated_time"),
        "LogicalResourceId": resource.get("resource_name"),
        "Metadata": resource.get("metadata") or {},
        "PhysicalResourceId": resource.get("physical_resource_id", ""),
        "ResourceStatusReason": resource.get("resource_status_reason"),
        "ResourceType": resource.get("resource_type"),
        "StackId": stack_arn,
        "StackName": resource.get("stack_name"),
        "ResourceStatus": f"{resource.get('resource_action')}_"
                          f"{resource.get('resource_status')}",
    }


async def actions(request: Request) -> Response:
    try:
        body = await request.body()
        key = await _authenticate(request, body)
        params = _params(request, body)
        action = params.get("Action")
        if action != "DescribeStackResource":
            raise CfnError(INVALID_ACTION, f"Unsupported action {action}")
        stack = params.get("StackName")
        name = params.get("LogicalResourceId")
        if not stack or not name:
            raise CfnError(MISSING_PARAMETER, "StackName and LogicalResourceId")
        if stack not in (key.stack_name, key.stack_id, _stack_arn(key)):
            raise CfnError(ACCESS_DENIED)
        found = await _call(request, key, "describe_stack_resource",
                            stack_identity=_identity(key), resource_name=name,
                            with_attr=False)
        root = ElementTree.Element("DescribeStackResourceResponse")
        _element(root, {"DescribeStackResourceResult": {
            "StackResourceDetail": stack_resource_detail(found, key.project)}})
        return Response(ElementTree.tostring(root), media_type="application/xml")
    except CfnError as exc:
        return exc.response()


def _stack_arn(key: StackUserKey) -> str:
    return f"arn:openstack:heat::{key.project}:stacks/{key.stack_name}/{key.stack_id}"


async def _internal(request: Request, exc: Exception) -> Response:
    return CfnError(INTERNAL).response()


def create_cfn_app(rpc: EngineCalls, keys: KeyLookup, ec2tokens: Ec2Check | None = None
                   ) -> Starlette:
    """The ASGI app; ``keys`` checks signatures (``ec2tokens``, Keystone mode: those of
    keys Keystone holds), ``rpc`` reaches the engine."""
    app = Starlette(routes=[
        Route("/v1/signal/{arn:path}", signal, methods=["POST", "PUT"]),
        Route("/v1/waitcondition/{arn:path}", waitcondition, methods=["POST", "PUT"]),
        Route("/v1/", actions, methods=["GET", "POST"]),
        Route("/v1", actions, methods=["GET", "POST"]),
    ], exception_handlers={Exception: _internal})
    app.state.rpc = rpc
    app.state.keys = keys
    app.state.ec2tokens = ec2tokens
    return app
