"""moto's S3 server with authentication enforced, for SignatureV4Tests.

    s3_auth_server.py

Starts moto in this process on a free loopback port with INITIAL_NO_AUTH_ACTION_COUNT set, so that
only the first requests go unchecked: they make an IAM user with an access key and a policy that
allows everything, a bucket "assets" with one object, and a role whose temporary credential (STS
AssumeRole) carries a session token. It then
sends requests with a wrong secret until moto refuses one (403), proving that every request after
is checked. Prints one JSON line: the endpoint, both credentials, the object's path, ETag and bytes
(as hex). Runs until standard input closes.
"""
import json
import os
import socket
import sys

os.environ["INITIAL_NO_AUTH_ACTION_COUNT"] = "20"

import boto3  # noqa: E402
from botocore.config import Config  # noqa: E402
from botocore.exceptions import ClientError  # noqa: E402
from moto.server import ThreadedMotoServer  # noqa: E402

probe = socket.socket()
probe.bind(("127.0.0.1", 0))
port = probe.getsockname()[1]
probe.close()
server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
server.start()
endpoint = f"http://127.0.0.1:{port}"


def client(service, key="test", secret="test", token=None):
    return boto3.client(
        service, endpoint_url=endpoint, region_name="us-east-1", aws_access_key_id=key,
        aws_secret_access_key=secret, aws_session_token=token,
        config=Config(s3={"addressing_style": "path"}, retries={"max_attempts": 1}))


iam = client("iam")
iam.create_user(UserName="puller")
access = iam.create_access_key(UserName="puller")["AccessKey"]
policy = {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "*", "Resource": "*"}]}
iam.put_user_policy(UserName="puller", PolicyName="everything", PolicyDocument=json.dumps(policy))
key, secret = access["AccessKeyId"], access["SecretAccessKey"]
body = bytes((i * 7 + i // 256) % 256 for i in range(1 << 16))
s3 = client("s3", key, secret)
s3.create_bucket(Bucket="assets")
s3.put_object(Bucket="assets", Key="dir/a b.bin", Body=body)
etag = s3.head_object(Bucket="assets", Key="dir/a b.bin")["ETag"]
trust = {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Principal": {"AWS": "*"}, "Action": "sts:AssumeRole"}]}
role = iam.create_role(RoleName="reader", AssumeRolePolicyDocument=json.dumps(trust))["Role"]
iam.put_role_policy(RoleName="reader", PolicyName="everything", PolicyDocument=json.dumps(policy))
temporary = client("sts", key, secret).assume_role(RoleArn=role["Arn"], RoleSessionName="pull")["Credentials"]

wrong = client("s3", key, "not-the-secret")
for _ in range(40):
    try:
        wrong.head_object(Bucket="assets", Key="dir/a b.bin")
    except ClientError as error:
        if error.response["ResponseMetadata"]["HTTPStatusCode"] == 403:
            break
else:
    sys.exit("moto never enforced authentication")

print(json.dumps({
    "endpoint": endpoint, "key": key, "secret": secret,
    "temporary": {"key": temporary["AccessKeyId"], "secret": temporary["SecretAccessKey"], "token": temporary["SessionToken"]},
    "object": "/assets/dir/a%20b.bin", "etag": etag, "body": body.hex(),
}), flush=True)
sys.stdin.read()
server.stop()
