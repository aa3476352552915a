import pymongo, sys
for comp in ["snappy", "zlib", "zstd", None]:
    uri = "mongodb://127.0.0.1:27399/?directConnection=true" + (("&compressors=" + comp) if comp else "")
    c = pymongo.MongoClient(uri, serverSelectionTimeoutMS=3000)
    print(comp, c.admin.command("ping"))
    coll = c.test.people
    r = coll.insert_many([{"i": i, "text": "hello world " * 20} for i in range(500)])
    coll.with_options(write_concern=pymongo.WriteConcern(w=0)).insert_one({"x": 1})
    doc = coll.find_one()
    print(comp, "inserted", doc["inserted_on_this_connection"], len(doc["pad"]))
    try:
        c.test.command("nosuch")
    except pymongo.errors.OperationFailure as e:
        print(comp, "error ok:", e.code)
    c.close()
