# A Godot 3 save with a value of every type (objects aside), for cli/tests/cli.rs:
#
#   ORACLE_OUT=/tmp/save3.bin godot3.6 --path tests/oracle -s save3.gd
#
# Writes each value with File.store_var to ORACLE_OUT and prints its var2str, UTF-8
# as hex, one "V <hex>" line a value, so the test can compare what the crate reads.
# With ORACLE_PASS set, the save is written with open_encrypted_with_pass.
extends SceneTree

func values() -> Array:
	return [
		null, true, -7, 1 << 40, 0.5, 1.0 / 3.0, "text with \"quotes\" and ümlauts",
		Vector2(1.5, -2), Rect2(1, 2, 3, 4), Vector3(0.1, 0.2, 0.3),
		Transform2D(0.5, Vector2(3, 4)), Plane(0, 1, 0, 2.5), Quat(0, 0.6, 0, 0.8),
		AABB(Vector3(1, 2, 3), Vector3(4, 5, 6)), Basis(Vector3(0, 1, 0), 0.25),
		Transform(Basis(Vector3(1, 0, 0), 1.0), Vector3(7, 8, 9)), Color(0.1, 0.2, 0.3, 0.4),
		NodePath("Level/Player:position:x"), RID(), null,
		{"name": "Ann", "level": 3, "pos": Vector3(1, 2, 3), 7: [1, "a", Color(1, 0, 0)]},
		[1, [2, [3, {"deep": PoolIntArray([1, 2])}]]],
		PoolByteArray([0, 1, 254, 255]), PoolIntArray([-1, 0, 1 << 30]),
		PoolRealArray([0.25, -1e10]), PoolStringArray(["a", "", "ü"]),
		PoolVector2Array([Vector2(1, 2), Vector2(-3, 4)]),
		PoolVector3Array([Vector3(1, 2, 3)]), PoolColorArray([Color(1, 1, 1, 0.5)]),
		{"players": [{"name": "Bo", "inventory": PoolStringArray(["sword"]), "hp": 9.75}]},
	]

func _init():
	var path := OS.get_environment("ORACLE_OUT")
	var password := OS.get_environment("ORACLE_PASS")
	var f := File.new()
	var err
	if password == "":
		err = f.open(path, File.WRITE)
	else:
		err = f.open_encrypted_with_pass(path, File.WRITE, password)
	if err != OK:
		printerr("cannot open ", path, ": ", err)
		quit(1)
		return
	for v in values():
		f.store_var(v)
		print("V ", var2str(v).to_utf8().hex_encode())
	f.close()
	quit()
