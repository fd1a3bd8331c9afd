#!/bin/bash
# Reconstructed by drums-gym (the original is not available): ~/project holds PHP files in
# nested folders, 54 lines in all, next to files of other kinds.
mkdir -p /home/user/project/src/controllers /home/user/project/src/models /home/user/project/public
cd /home/user/project || exit 1
printf '<?php\n// entry point\nrequire __DIR__ . "/../src/app.php";\n$app = new App();\n$app->run();\n' > public/index.php
printf '<?php\nclass App\n{\n    public function run()\n    {\n        $router = new Router();\n        $router->dispatch($_SERVER["REQUEST_URI"]);\n    }\n}\n' > src/app.php
printf '<?php\nclass Router\n{\n    private $routes = [];\n\n    public function add($path, $handler)\n    {\n        $this->routes[$path] = $handler;\n    }\n\n    public function dispatch($uri)\n    {\n        if (isset($this->routes[$uri])) {\n            call_user_func($this->routes[$uri]);\n        }\n    }\n}\n' > src/router.php
printf '<?php\nclass HomeController\n{\n    public function index()\n    {\n        echo "Home";\n    }\n}\n' > src/controllers/HomeController.php
printf '<?php\nclass User\n{\n    public $name;\n    public $email;\n\n    public function __construct($name, $email)\n    {\n        $this->name = $name;\n        $this->email = $email;\n    }\n}\n' > src/models/User.php
printf '<?php\n// settings\nreturn ["debug" => true];\n' > config.php
printf '# Project\n\nA small PHP project.\n' > README.md
printf 'body {\n  margin: 0;\n}\n' > public/style.css
printf '<html>\n<body>\n</body>\n</html>\n' > public/about.html
