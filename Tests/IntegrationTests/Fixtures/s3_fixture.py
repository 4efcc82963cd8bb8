"""An S3 client for the object-storage tests, run with the moto virtual environment's Python.

    s3_fixture.py ENDPOINT PUBLIC_ENDPOINT BUCKET put KEY FILE [PART_SIZE]

Creates BUCKET at ENDPOINT (moto) if needed, uploads FILE as KEY (a multipart upload in parts of
PART_SIZE bytes when given), and prints one JSON object: the object's ETag and a presigned GET URL
(SigV4, path style, an hour long) addressed to PUBLIC_ENDPOINT, where the test's logging proxy
forwards to moto.
"""
import json
import sys

import boto3
from botocore.config import Config


def client(endpoint):
    return boto3.client(
        "s3",
        endpoint_url=endpoint,
        aws_access_key_id="test",
        aws_secret_access_key="test",
        region_name="us-east-1",
        config=Config(signature_version="s3v4", s3={"addressing_style": "path"}),
    )


def main():
    endpoint, public, bucket, command, key, path = sys.argv[1:7]
    part_size = int(sys.argv[7]) if len(sys.argv) > 7 else None
    if command != "put":
        sys.exit(f"unknown command {command}")
    s3 = client(endpoint)
    if bucket not in [b["Name"] for b in s3.list_buckets().get("Buckets", [])]:
        s3.create_bucket(Bucket=bucket)
    with open(path, "rb") as f:
        data = f.read()
    if part_size:
        upload = s3.create_multipart_upload(Bucket=bucket, Key=key)
        parts = []
        for number, start in enumerate(range(0, len(data), part_size), start=1):
            answer = s3.upload_part(
                Bucket=bucket, Key=key, UploadId=upload["UploadId"], PartNumber=number, Body=data[start:start + part_size])
            parts.append({"PartNumber": number, "ETag": answer["ETag"]})
        s3.complete_multipart_upload(
            Bucket=bucket, Key=key, UploadId=upload["UploadId"], MultipartUpload={"Parts": parts})
    else:
        s3.put_object(Bucket=bucket, Key=key, Body=data)
    etag = s3.head_object(Bucket=bucket, Key=key)["ETag"]
    url = client(public).generate_presigned_url("get_object", Params={"Bucket": bucket, "Key": key}, ExpiresIn=3600)
    print(json.dumps({"etag": etag, "url": url}))


main()
