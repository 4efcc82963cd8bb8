"""An S3 client for the object-storage tests, run with the moto virtual environment's Python.

    s3_fixture.py ENDPOINT PUBLIC_ENDPOINT BUCKET put KEY FILE [PART_SIZE]
    s3_fixture.py ENDPOINT PUBLIC_ENDPOINT BUCKET put-many PREFIX COUNT
    s3_fixture.py ENDPOINT PUBLIC_ENDPOINT BUCKET auth

put creates BUCKET at ENDPOINT (moto) if needed, uploads FILE as KEY (a multipart upload in parts
of PART_SIZE bytes when given), and prints one JSON object: the object's ETag and a presigned GET
URL (SigV4, path style, an hour long) addressed to PUBLIC_ENDPOINT, where the test's logging proxy
forwards to moto. It signs with S3_FIXTURE_KEY and S3_FIXTURE_SECRET when set, else moto's
default "test" key. S3_FIXTURE_CHECKSUM=crc32 has the store keep the object's CRC-32 (for a
multipart upload, a checksum of its parts' CRC-32s), none keeps none; unset, boto3 decides.

put-many puts COUNT small objects PREFIXnnnnn.txt, each holding its own key, and prints nothing.

auth, for a moto started with INITIAL_NO_AUTH_ACTION_COUNT, spends the unchecked requests on an
IAM user with an access key and a policy that allows everything, creates BUCKET with that key,
then sends requests with a wrong secret until moto refuses one (403), proving that every request
after is checked. Prints the key and secret as one JSON object.
"""
import json
import os
import sys

import boto3
from botocore.config import Config
from botocore.exceptions import ClientError


CHECKSUM = os.environ.get("S3_FIXTURE_CHECKSUM")


def client(endpoint, service="s3", key=None, secret=None):
    checksums = {"request_checksum_calculation": "when_required"} if CHECKSUM == "none" else {}
    return boto3.client(
        service,
        endpoint_url=endpoint,
        aws_access_key_id=key or os.environ.get("S3_FIXTURE_KEY", "test"),
        aws_secret_access_key=secret or os.environ.get("S3_FIXTURE_SECRET", "test"),
        region_name="us-east-1",
        config=Config(signature_version="s3v4", s3={"addressing_style": "path"}, retries={"max_attempts": 1}, **checksums),
    )


def authenticate(endpoint, bucket):
    iam = client(endpoint, "iam")
    iam.create_user(UserName="puller")
    access = iam.create_access_key(UserName="puller")["AccessKey"]
    policy = {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "*", "Resource": "*"}]}
    iam.put_user_policy(UserName="puller", PolicyName="everything", PolicyDocument=json.dumps(policy))
    key, secret = access["AccessKeyId"], access["SecretAccessKey"]
    client(endpoint, key=key, secret=secret).create_bucket(Bucket=bucket)
    wrong = client(endpoint, key=key, secret="not-the-secret")
    for _ in range(40):
        try:
            wrong.head_bucket(Bucket=bucket)
        except ClientError as error:
            if error.response["ResponseMetadata"]["HTTPStatusCode"] == 403:
                break
    else:
        sys.exit("moto never enforced authentication")
    print(json.dumps({"key": key, "secret": secret}))


def main():
    endpoint, public, bucket, command = sys.argv[1:5]
    if command == "auth":
        return authenticate(endpoint, bucket)
    if command == "put-many":
        prefix, count = sys.argv[5], int(sys.argv[6])
        s3 = client(endpoint)
        for number in range(count):
            key = f"{prefix}{number:05d}.txt"
            s3.put_object(Bucket=bucket, Key=key, Body=key.encode())
        return
    if command != "put":
        sys.exit(f"unknown command {command}")
    key, path = sys.argv[5:7]
    part_size = int(sys.argv[7]) if len(sys.argv) > 7 else None
    s3 = client(endpoint)
    if bucket not in [b["Name"] for b in s3.list_buckets().get("Buckets", [])]:
        s3.create_bucket(Bucket=bucket)
    with open(path, "rb") as f:
        data = f.read()
    algorithm = {"ChecksumAlgorithm": "CRC32"} if CHECKSUM == "crc32" else {}
    if part_size:
        upload = s3.create_multipart_upload(Bucket=bucket, Key=key, **algorithm)
        parts = []
        for number, start in enumerate(range(0, len(data), part_size), start=1):
            answer = s3.upload_part(
                Bucket=bucket, Key=key, UploadId=upload["UploadId"], PartNumber=number, Body=data[start:start + part_size],
                **algorithm)
            part = {"PartNumber": number, "ETag": answer["ETag"]}
            if "ChecksumCRC32" in answer:
                part["ChecksumCRC32"] = answer["ChecksumCRC32"]
            parts.append(part)
        s3.complete_multipart_upload(
            Bucket=bucket, Key=key, UploadId=upload["UploadId"], MultipartUpload={"Parts": parts})
    else:
        s3.put_object(Bucket=bucket, Key=key, Body=data, **algorithm)
    etag = s3.head_object(Bucket=bucket, Key=key)["ETag"]
    url = client(public).generate_presigned_url("get_object", Params={"Bucket": bucket, "Key": key}, ExpiresIn=3600)
    print(json.dumps({"etag": etag, "url": url}))


main()
