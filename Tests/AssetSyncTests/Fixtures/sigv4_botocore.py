"""botocore's own S3 signature for each request given, for SignatureV4Tests.

Reads a JSON list of requests on stdin, each {"url", "headers": [[name, value]...], "access_key",
"secret_key", "token" (or null), "region", "time" (seconds since the epoch)}, and prints a JSON list
of the headers botocore's S3SigV4Auth adds to each: its own signer, with its clock set to "time".
"""
import datetime
import json
import sys

import botocore.auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials

out = []
for case in json.load(sys.stdin):
    moment = datetime.datetime.fromtimestamp(case["time"], datetime.timezone.utc).replace(tzinfo=None)
    botocore.auth.get_current_datetime = lambda moment=moment: moment
    request = AWSRequest(method="GET", url=case["url"], headers=dict(case["headers"]))
    credentials = Credentials(case["access_key"], case["secret_key"], case["token"])
    botocore.auth.S3SigV4Auth(credentials, "s3", case["region"]).add_auth(request)
    names = ["X-Amz-Date", "X-Amz-Content-SHA256", "X-Amz-Security-Token", "Authorization"]
    out.append({name.lower(): request.headers[name] for name in names if name in request.headers})
print(json.dumps(out))
