# Save-file oracle for Godot 3 (tests/live_godot.rs). MODE=write: File.store_var a
# few values into $FILE. MODE=read: File.get_var until the end, printing
# "VALUE <var2bytes hex>" and "TEXT <var2str on one line>" for each.
# BIG_ENDIAN=1 sets File.endian_swap: big-endian length prefixes.
extends SceneTree

func _init():
	var f = File.new()
	var write = OS.get_environment("MODE") == "write"
	var err = f.open(OS.get_environment("FILE"), File.WRITE if write else File.READ)
	if err != OK:
		printerr("cannot open the file: ", err)
		quit(1)
		return
	f.endian_swap = OS.get_environment("BIG_ENDIAN") == "1"
	if write:
		f.store_var(42)
		f.store_var("slot 1")
		f.store_var({"name": "Ann", "hp": 100, "pos": Vector3(1, 2, 3), "facing": Quat(0, 0.6, 0, 0.8)})
		f.store_var(PoolStringArray(["sword", "shield"]))
		f.store_var(Transform(Basis(Vector3(0, 1, 0), 0.5), Vector3(1, 2, 3)))
		f.store_var([1 << 40, 0.1, null, true])
	else:
		while f.get_position() < f.get_len():
			var v = f.get_var()
			print("VALUE ", var2bytes(v).hex_encode())
			print("TEXT ", var2str(v).replace("\n", " "))
	f.close()
	quit()
