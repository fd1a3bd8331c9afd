"""The action language: pyautogui code strings, parsed with `ast`, never executed."""
