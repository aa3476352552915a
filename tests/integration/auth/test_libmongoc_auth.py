"""The C driver (libmongoc) signs in to a quarryd started with --auth: SCRAM-SHA-256, SCRAM-SHA-1
and the mechanism it negotiates, reads and writes afterwards; a wrong password and an unknown
user fail with "Authentication failed.", and without credentials a find is refused
(tests/integration/libmongoc/auth_test.cc)."""

from libmongoc_programs import run_libmongoc_program

PASSWORD = "c-driver-pw"


def test_libmongoc_signs_in_with_each_scram_mechanism(auth_server, admin):
    admin.admin.command("createUser", "cdriver", pwd=PASSWORD,
                        roles=[{"role": "readWrite", "db": "quarry_libmongoc_auth"}],
                        mechanisms=["SCRAM-SHA-1", "SCRAM-SHA-256"])
    run_libmongoc_program(auth_server, "QUARRY_LIBMONGOC_AUTH_TEST", "quarry_libmongoc_auth_test",
                          120, extra_env={"QUARRY_AUTH_USER": "cdriver",
                                          "QUARRY_AUTH_PASSWORD": PASSWORD})
    # What the program wrote is there, once per mechanism it signed in with.
    tags = sorted(d["tag"] for d in admin.quarry_libmongoc_auth.items.find())
    assert tags == ["written with SCRAM-SHA-1", "written with SCRAM-SHA-256",
                    "written with negotiated mechanism"]
