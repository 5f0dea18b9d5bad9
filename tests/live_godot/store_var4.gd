# Save-file oracle for Godot 4 (tests/live_godot.rs). MODE=write: FileAccess.store_var
# a few values into $FILE. MODE=read: FileAccess.get_var until the end, printing
# "VALUE <var_to_bytes hex>" and "TEXT <var_to_str on one line>" for each.
# BIG_ENDIAN=1 sets FileAccess.big_endian: big-endian length prefixes.
extends SceneTree

func _init():
	var write = OS.get_environment("MODE") == "write"
	var f = FileAccess.open(OS.get_environment("FILE"), FileAccess.WRITE if write else FileAccess.READ)
	if f == null:
		printerr("cannot open the file: ", FileAccess.get_open_error())
		quit(1)
		return
	f.big_endian = OS.get_environment("BIG_ENDIAN") == "1"
	if write:
		f.store_var(42)
		f.store_var("slot 1")
		f.store_var({"name": "Ann", "hp": 100, "pos": Vector3(1, 2, 3), "facing": Quaternion(0, 0.6, 0, 0.8)})
		f.store_var(PackedStringArray(["sword", "shield"]))
		f.store_var(Transform3D(Basis(Vector3(0, 1, 0), 0.5), Vector3(1, 2, 3)))
		f.store_var([1 << 40, 0.1, null, true])
	else:
		while f.get_position() < f.get_length():
			var v = f.get_var()
			print("VALUE ", var_to_bytes(v).hex_encode())
			print("TEXT ", var_to_str(v).replace("\n", " "))
	f.close()
	quit()
