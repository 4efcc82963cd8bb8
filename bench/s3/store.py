#!/usr/bin/env python3
"""The S3 benchmark's client side of moto, run with the moto virtual environment's
Python (boto3): uploads a set of the peers benchmark (bench/peers/data.py) into
the bucket, publishes its manifest beside it, and lists what a reference client
fetches.

usage: store.py ENDPOINT BUCKET upload LIST SOURCE PREFIX
       store.py ENDPOINT BUCKET curl-config LIST PREFIX OUT

The key and secret come from S3_BENCH_KEY and S3_BENCH_SECRET (what
Tests/IntegrationTests/Fixtures/s3_fixture.py's `auth` printed); region
us-east-1, path-style addressing, SigV4.

`upload` puts every file of LIST (``crc32<TAB>size<TAB>path``) found under
SOURCE at PREFIX + path, 8 at a time, as real uploaders do: a file larger than
8 MiB as a multipart upload in 8 MiB parts (boto3's and the AWS CLI's default,
so a 64 MiB file's ETag ends in ``-8``), a smaller one in one PUT (its ETag the
MD5 of its bytes). Then it writes PREFIX + manifest.json, a JSON manifest with
base ``s3://BUCKET/PREFIX`` and every file's size and CRC-32, and prints one
line: objects, bytes, seconds and the ETag of the first file.

`curl-config` writes OUT, a curl --config file fetching every object of LIST
from ENDPOINT (path style) to /dev/null: the reference run, which curl signs
with --aws-sigv4.
"""
import json
import os
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from urllib.parse import quote

import boto3
from boto3.s3.transfer import TransferConfig
from botocore.config import Config

PART = 8 << 20
CONCURRENCY = 8


def client(endpoint):
    return boto3.client(
        "s3",
        endpoint_url=endpoint,
        aws_access_key_id=os.environ["S3_BENCH_KEY"],
        aws_secret_access_key=os.environ["S3_BENCH_SECRET"],
        region_name="us-east-1",
        config=Config(signature_version="s3v4", s3={"addressing_style": "path"},
                      max_pool_connections=CONCURRENCY * 2, retries={"max_attempts": 3}),
    )


def read_list(listing):
    with open(listing, encoding="utf-8") as f:
        return [line.rstrip("\n").split("\t", 2) for line in f if line.strip()]


def upload(endpoint, bucket, listing, source, prefix):
    s3 = client(endpoint)
    entries = read_list(listing)
    # One file at a time with its parts in parallel (a large set), or many small files at once.
    transfer = TransferConfig(multipart_threshold=PART + 1, multipart_chunksize=PART,
                              max_concurrency=CONCURRENCY, use_threads=True)
    started = time.monotonic()

    def put(entry):
        _, size, path = entry
        full = os.path.join(source, path)
        if int(size) > PART:
            s3.upload_file(full, bucket, prefix + path, Config=transfer)
        else:
            with open(full, "rb") as f:
                s3.put_object(Bucket=bucket, Key=prefix + path, Body=f.read())

    large = [e for e in entries if int(e[1]) > PART]
    for entry in large:
        put(entry)
    with ThreadPoolExecutor(CONCURRENCY) as pool:
        for _ in pool.map(put, [e for e in entries if int(e[1]) <= PART]):
            pass
    manifest = {
        "version": 1,
        "base": "s3://%s/%s" % (bucket, prefix),
        "files": [{"path": path, "size": int(size), "crc32": crc} for crc, size, path in entries],
    }
    s3.put_object(Bucket=bucket, Key=prefix + "manifest.json",
                  Body=json.dumps(manifest, separators=(",", ":")).encode("utf-8"))
    etag = s3.head_object(Bucket=bucket, Key=prefix + entries[0][2])["ETag"]
    total = sum(int(size) for _, size, _ in entries)
    print("uploaded %d objects, %d bytes, in %.1f s (ETag of %s: %s), and %smanifest.json"
          % (len(entries), total, time.monotonic() - started, entries[0][2], etag, prefix))


def curl_config(endpoint, bucket, listing, prefix, out):
    with open(out, "w", encoding="utf-8") as f:
        for _, _, path in read_list(listing):
            f.write('url = "%s/%s/%s"\noutput = "/dev/null"\n' % (endpoint, bucket, quote(prefix + path)))


def main():
    args = sys.argv[1:]
    if len(args) == 6 and args[2] == "upload":
        upload(args[0], args[1], *args[3:])
    elif len(args) == 6 and args[2] == "curl-config":
        curl_config(args[0], args[1], *args[3:])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
