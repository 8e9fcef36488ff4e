"""EC2 signatures against vectors computed by other implementations.

The SigV2 vectors were computed with keystoneclient's ``Ec2Signer`` (what
os-collect-config's cfn source signs with) and botocore's ``SigV2Auth``; the
SigV4 ones with botocore's ``SigV4Auth`` and ``SigV4QueryAuth``.
"""

from __future__ import annotations

from urllib.parse import parse_qsl, urlsplit

import pytest

from hotplate.model.ec2_signature import (
    SignedRequest,
    access_key_id,
    canonical_query,
    sign_v2,
    verify,
)

KEY_ID = "AKIDEXAMPLE"
SECRET = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"
HOST = "127.0.0.1:8000"
ARN_PATH = "/v1/waitcondition/arn:openstack:heat::p:stacks/s/1/resources/h"


def test_v2_presigned_signal_url_matches_keystoneclient() -> None:
    params = {"SignatureMethod": "HmacSHA256", "SignatureVersion": "2",
              "AWSAccessKeyId": KEY_ID, "Timestamp": "2026-12-01T12:30:00Z"}
    assert sign_v2(SECRET, "PUT", HOST, ARN_PATH, params) == (
        "JeN/ZxDfyCQJeVqlgiYyVs1tyLgJkC/1BiuGr9LEPwY=")


def test_v2_hmac_sha1_and_escaping_match_keystoneclient() -> None:
    params = {"SignatureMethod": "HmacSHA1", "SignatureVersion": "2", "AWSAccessKeyId": "AKID",
              "Action": "DescribeStackResource", "StackName": "a b/c",
              "LogicalResourceId": "s~1"}
    assert sign_v2("secret", "GET", "h:8000", "/v1/", params) == "+Ng4v9pxGsPJjKcfa6+I3It5UEU="


BOTO_V2 = {"Action": "DescribeStackResource", "StackName": "st", "LogicalResourceId": "server",
           "AWSAccessKeyId": KEY_ID, "SignatureVersion": "2", "SignatureMethod": "HmacSHA256",
           "Timestamp": "2026-12-01T12:30:00Z",
           "Signature": "NGRIRuhqY2jhvJjuMMCs81+qcd5oIN56kfFttlRw8nQ="}


def test_v2_botocore_query_verifies_signed_without_the_port() -> None:
    request = SignedRequest("GET", HOST, "/v1/", BOTO_V2)
    assert verify(SECRET, request)
    assert access_key_id(request) == KEY_ID


@pytest.mark.parametrize("change", [
    {"StackName": "other"}, {"Signature": "x" + BOTO_V2["Signature"][1:]},
    {"SignatureVersion": "1"}, {"Signature": ""},
])
def test_v2_any_change_fails(change: dict[str, str]) -> None:
    assert not verify(SECRET, SignedRequest("GET", HOST, "/v1/", {**BOTO_V2, **change}))


def test_v2_wrong_secret_verb_or_path_fails() -> None:
    assert not verify("other", SignedRequest("GET", HOST, "/v1/", BOTO_V2))
    assert not verify(SECRET, SignedRequest("POST", HOST, "/v1/", BOTO_V2))
    assert not verify(SECRET, SignedRequest("GET", HOST, "/v2/", BOTO_V2))


def test_unsigned_request_has_no_key_and_fails() -> None:
    request = SignedRequest("GET", HOST, "/v1/", {"Action": "DescribeStackResource"})
    assert access_key_id(request) is None
    assert not verify(SECRET, request)


def test_canonical_query_sorts_and_escapes() -> None:
    assert canonical_query({"b": "x y", "a": "1/2", "Signature": "s"}) == "a=1%2F2&b=x%20y"


V4_DATE = "20261202T051433Z"
V4_GET_AUTH = ("AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20261202/RegionOne/cloudformation/"
               "aws4_request, SignedHeaders=host;x-amz-date, "
               "Signature=38d4199bfa98052d5d4bf637c4c6fa2f2e5184e06fade1ab0e8ca7aa600e7e69")
V4_QUERY = {"Action": "DescribeStackResource", "StackName": "st", "LogicalResourceId": "server"}


def test_v4_header_get_matches_botocore() -> None:
    request = SignedRequest("GET", HOST, "/v1/", V4_QUERY,
                            {"Host": HOST, "X-Amz-Date": V4_DATE, "Authorization": V4_GET_AUTH})
    assert verify(SECRET, request)
    assert access_key_id(request) == KEY_ID
    assert not verify("other", request)
    assert not verify(SECRET, SignedRequest("GET", HOST, "/v1/", {**V4_QUERY, "StackName": "x"},
                                            request.headers))


def test_v4_header_post_with_body_matches_botocore() -> None:
    auth = ("AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20261202/RegionOne/cloudformation/"
            "aws4_request, SignedHeaders=content-type;host;x-amz-date, "
            "Signature=e30d9415b195304e2b628f0be9dfaf5cc79ca12c2ddd77f495543394eb604899")
    headers = {"Content-Type": "application/json", "Host": HOST, "X-Amz-Date": V4_DATE,
               "Authorization": auth}
    path = "/v1/signal/arn:openstack:heat::p:stacks/s/1/resources/h"
    body = b'{"status": "SUCCESS"}'
    raw = "/v1/signal/arn%3Aopenstack%3Aheat%3A%3Ap%3Astacks/s/1/resources/h"
    assert verify(SECRET, SignedRequest("POST", HOST, path, {}, headers, body, raw))
    assert not verify(SECRET, SignedRequest("POST", HOST, path, {}, headers,
                                            b'{"status": "X"}', raw))


def test_v4_presigned_query_matches_botocore() -> None:
    url = ("http://127.0.0.1:8000/v1/?Action=DescribeStackResource&StackName=st"
           "&LogicalResourceId=server&X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential="
           "AKIDEXAMPLE%2F20261202%2FRegionOne%2Fcloudformation%2Faws4_request"
           "&X-Amz-Date=20261202T051433Z&X-Amz-Expires=3600&X-Amz-SignedHeaders=host"
           "&X-Amz-Signature=f23762d93beae94dab141841836d7dd0e5b0a5ef502c6fc2992291770a6e9d4a")
    params = dict(parse_qsl(urlsplit(url).query))
    request = SignedRequest("GET", HOST, "/v1/", params, {"Host": HOST})
    assert access_key_id(request) == KEY_ID
    assert verify(SECRET, request)
    assert not verify(SECRET, SignedRequest("GET", HOST, "/v1/", {**params, "X-Amz-Date":
                                                                     "20261203T000000Z"}))
