# Godot 4 save-file oracle. MODE=write: store_var three values into $FILE.
# MODE=read: get_var until the end, printing "VALUE <var_to_str on one line>".
# BIG_ENDIAN=1 sets FileAccess.big_endian (big-endian length prefixes).
extends SceneTree

func _init():
	var write = OS.get_environment("MODE") == "write"
	var f = FileAccess.open(OS.get_environment("FILE"), FileAccess.WRITE if write else FileAccess.READ)
	f.big_endian = OS.get_environment("BIG_ENDIAN") == "1"
	if write:
		f.store_var(42)
		f.store_var("hi")
		f.store_var({"name": "Ann", "hp": 100, "pos": Vector3(1, 2, 3)})
	else:
		while f.get_position() < f.get_length():
			print("VALUE ", var_to_str(f.get_var()).replace("\n", " "))
	f.close()
	quit()
