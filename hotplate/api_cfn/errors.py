"""heat-api-cfn's error responses: AWS-style XML, ``ErrorResponse/Error/{Type,Code,Message}``."""

from __future__ import annotations

from xml.etree import ElementTree

from starlette.responses import Response

SIGNATURE_MISMATCH = (403, "SignatureDoesNotMatch",
                      "The request signature we calculated does not match the signature "
                      "you provided")
MISSING_AUTH = (403, "MissingAuthenticationToken",
                "Does not contain a valid AWS Access Key or certificate")
ACCESS_DENIED = (403, "AccessDenied", "User is not authorized to perform action")
INVALID_PARAMETER = (400, "InvalidParameterValue",
                     "An invalid or out-of-range value was supplied for the input parameter")
MISSING_PARAMETER = (400, "MissingParameter",
                     "The request is missing a required parameter")
INVALID_ACTION = (400, "InvalidAction",
                  "The action or operation requested is invalid")
NOT_FOUND = (404, "HeatAPIException", "The resource could not be found.")
TOKEN_EXISTS = (400, "TokenAlreadyExistsException",
                "A client request token already exists")
IN_PROGRESS = (503, "ServiceUnavailable",
               "The request with this client request token is still in progress")
INTERNAL = (500, "InternalFailure",
            "The request processing has failed due to an internal error")

INVALID_PARAMETER_ERRORS = frozenset({
    "AttributeError", "ValueError", "InvalidTenant", "EntityNotFound",
    "ResourceActionNotSupported", "ResourceNotFound", "ResourceNotAvailable",
    "StackValidationFailed", "InvalidSchemaError", "InvalidTemplateReference",
    "InvalidTemplateVersion", "InvalidTemplateSection", "UnknownUserParameter",
    "UserParameterMissing", "MissingCredentialError", "ResourcePropertyConflict",
    "PropertyUnspecifiedError", "NotSupported", "InvalidBreakPointHook",
    "PhysicalResourceIDAmbiguity"})
"""The engine's errors heat-api-cfn answers as InvalidParameterValue (its
``map_remote_error``); any other it does not know is an InternalFailure."""


class CfnError(Exception):
    """An error answered in heat-api-cfn's form (``detail`` appended after a colon)."""

    def __init__(self, kind: tuple[int, str, str], detail: str | None = None) -> None:
        self.status, self.code, explanation = kind
        self.message = f"{explanation}:{detail}" if detail else explanation
        super().__init__(self.message)

    def response(self) -> Response:
        root = ElementTree.Element("ErrorResponse")
        error = ElementTree.SubElement(root, "Error")
        for tag, text in (("Type", "Server" if self.status >= 500 else "Sender"),
                          ("Code", self.code), ("Message", self.message)):
            ElementTree.SubElement(error, tag).text = text
        return Response(ElementTree.tostring(root), status_code=self.status,
                        media_type="application/xml")
