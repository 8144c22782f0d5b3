"""memplan_onnx_schema.py -- Python message classes for OUR src/onnx/onnx.proto.

Debian's python onnx (1.12) only knows ONNX IR 8, so fields added later
(NodeProto.metadata_props, overload, FLOAT8/INT4 element types, ...) are
unknown fields to onnx.ModelProto. The scripts that build or compare models
also need the current schema: this module compiles our onnx.proto with
`protoc --descriptor_set_out` into a private DescriptorPool (so it does not
clash with onnx's own "onnx.*" registrations) and hands out its classes.

    schema = load_schema()             # or load_schema(proto_path, protoc)
    Model = schema["onnx.ModelProto"]
    m = Model.FromString(onnx_model.SerializeToString())

Also: a few protobuf wire-format encoders for building bytes by hand.
Used by scripts/gen_fixtures.py and native-tests/roundtrip_check.py.
"""
import os
import shutil
import subprocess
import tempfile

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_PROTO = os.path.join(HERE, "..", "src", "onnx", "onnx.proto")


class Schema(dict):
    """Full message name -> class; .pool is the DescriptorPool."""


def load_schema(proto=DEFAULT_PROTO, protoc=None):
    protoc = protoc or shutil.which("protoc")
    if not protoc:
        raise RuntimeError("protoc not found (Debian package protobuf-compiler)")
    proto = os.path.abspath(proto)
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "schema.pb")
        subprocess.run([protoc, "-I", os.path.dirname(proto), "--descriptor_set_out=" + out, proto],
                       check=True)
        fds = descriptor_pb2.FileDescriptorSet()
        with open(out, "rb") as f:
            fds.ParseFromString(f.read())
    pool = descriptor_pool.DescriptorPool()
    for fd in fds.file:
        pool.Add(fd)
    factory = message_factory.MessageFactory(pool)
    schema = Schema()
    schema.pool = pool

    def add(desc):
        schema[desc.full_name] = factory.GetPrototype(desc)
        for nested in desc.nested_types:
            add(nested)

    fdesc = pool.FindFileByName(fds.file[0].name)
    for desc in fdesc.message_types_by_name.values():
        add(desc)
    return schema


def convert(msg, cls):
    """Re-parse a message (any schema) as cls."""
    return cls.FromString(msg.SerializeToString())


# ---- wire format -----------------------------------------------------------
VARINT, I64, LEN, SGROUP, EGROUP, I32 = 0, 1, 2, 3, 4, 5


def varint(n):
    if n < 0:
        n += 1 << 64
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def key(field, wire):
    return varint((field << 3) | wire)


def f_varint(field, n):
    return key(field, VARINT) + varint(n)


def f_bytes(field, data):
    if isinstance(data, str):
        data = data.encode("utf-8")
    return key(field, LEN) + varint(len(data)) + data


def f_fixed32(field, data4):
    assert len(data4) == 4
    return key(field, I32) + data4


def f_fixed64(field, data8):
    assert len(data8) == 8
    return key(field, I64) + data8


def add_unknown(msg, raw):
    """Append raw wire bytes to msg (in place): they become its unknown fields
    (or, if the numbers are known to msg's schema, merged fields)."""
    msg.ParseFromString(msg.SerializeToString() + raw)
    return msg
