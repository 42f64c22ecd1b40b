//! The credential files the denylist knows, by name: the person's keys and tokens, the stores of
//! agent tools, cloud and infrastructure command lines, CI agents, package managers, password
//! managers, browsers, database clients, remote-access tools and shells, network devices'
//! configurations, Windows servers' stores of service accounts' passwords, and the operating
//! system's own; and the names that are templates, public halves or a tool's harmless files
//! beside its credentials.
//!
//! A store is named where its tool puts it, and no wider: the folder that holds the file
//! (`**/.circleci/cli.yml`, not every `cli.yml`; a Firefox profile's `logins.json`, not every
//! `logins.json`), so that a project's own file of the same name (`.circleci/config.yml`, a
//! translation table) stays readable. A tool that follows the XDG folders on Linux, Application
//! Support or Preferences on macOS and `%APPDATA%` on Windows is named by the folder of its own
//! name (`**/doctl/config.yaml`), which covers all three.

/// (glob, what it is), matched against the whole normalised path, without regard to case.
pub(super) const DENIED: &[(&str, &str)] = &[
    ("**/.env", "an environment file"),
    ("**/.env.*", "an environment file"),
    ("**/.envrc", "a direnv file"),
    ("**/id_rsa", "an SSH private key"),
    ("**/id_dsa", "an SSH private key"),
    ("**/id_ecdsa", "an SSH private key"),
    ("**/id_ed25519", "an SSH private key"),
    ("**/id_ecdsa_sk", "an SSH private key"),
    ("**/id_ed25519_sk", "an SSH private key"),
    // The folder is refused whole, not only its keys: reading `authorized_keys` or `config` is
    // harmless, but the list refuses writing as well as reading, and writing `authorized_keys`
    // lets another key in while `config`'s `ProxyCommand`, `LocalCommand` and `Match exec` run
    // commands at the next `ssh`. Known hosts and public keys are not credentials (below).
    (
        "**/.ssh/**",
        "an SSH folder's file: its keys, or files that written let a key in or run commands",
    ),
    ("**/ssh_host_*key", "an SSH server's host key"),
    ("**/*.key", "a private key file"),
    ("**/*.p12", "a PKCS#12 key store"),
    ("**/*.pfx", "a PKCS#12 key store"),
    ("**/*.pkcs12", "a PKCS#12 key store"),
    ("**/*.p8", "a PKCS#8 private key"),
    ("**/*.pk8", "a PKCS#8 private key"),
    ("**/*.jks", "a Java key store"),
    ("**/*.keystore", "a key store"),
    ("**/*.ppk", "a PuTTY private key"),
    ("**/*.agekey", "an age identity"),
    ("**/*.keytab", "a Kerberos keytab"),
    ("**/krb5cc_*", "a Kerberos ticket cache"),
    // Ticket caches and tickets saved by name (impacket's `alice.ccache`, Rubeus' and mimikatz'
    // `*.kirbi`); a stem is required, as `~/.ccache` is the compiler cache's folder.
    ("**/?*.ccache", "a Kerberos ticket cache"),
    ("**/*.kirbi", "a Kerberos ticket"),
    // PEM files named as private keys by certbot (`privkey.pem`), cfssl and mkcert
    // (`NAME-key.pem`) and most guides (`key.pem`, `private.pem`); any other `*.pem` is judged by
    // what it holds.
    ("**/*key.pem", "a PEM private key"),
    ("**/privkey*.pem", "a PEM private key"),
    ("**/*private*.pem", "a PEM private key"),
    // Raw keys kept as binaries and named as keys (ESP-IDF's `flash_encryption_key.bin`,
    // `hmac_key.bin`, an AES `key.bin`); a public or verification key's is not one (below).
    ("**/{key,*[-_]key}.bin", "a raw key file"),
    ("**/ssl/private/**", "a folder of TLS private keys"),
    ("**/private_keys/**", "a folder of private keys (Puppet)"),
    ("**/.netrc", "a netrc file"),
    ("**/_netrc", "a netrc file"),
    // Nix's `netrc-file` (`/etc/nix/netrc`) and other tools' netrc files kept without the dot.
    ("**/netrc", "a netrc file"),
    ("**/.git-credentials", "git's stored credentials"),
    ("**/.npmrc", "an npm configuration (it carries tokens)"),
    ("**/.pypirc", "a PyPI configuration (it carries tokens)"),
    // Yarn Berry's configuration in a home folder, where its registries' tokens are written
    // (`yarn npm login`); a repository's own `.yarnrc.yml` most often reads them from the
    // environment (`npmAuthToken: "${NPM_TOKEN}"`), so an existing one is judged by what it holds.
    (
        "/home/*/.yarnrc.yml",
        "a Yarn configuration in a home folder (it carries tokens)",
    ),
    (
        "/root/.yarnrc.yml",
        "a Yarn configuration in a home folder (it carries tokens)",
    ),
    (
        "**/Users/*/.yarnrc.yml",
        "a Yarn configuration in a home folder (it carries tokens)",
    ),
    ("**/.gem/credentials", "RubyGems credentials"),
    ("**/.aws/credentials", "AWS credentials"),
    ("**/.docker/config.json", "Docker registry credentials"),
    ("**/.kube/config", "a kubeconfig"),
    ("**/kubeconfig", "a kubeconfig"),
    ("**/*.kubeconfig", "a kubeconfig"),
    // A kubeconfig saved by cluster or environment (`kubeconfig-staging.yaml`,
    // `prod_kubeconfig.yml`); a source file of that name (`kubeconfig.go`) is not one.
    (
        "**/{kubeconfig,kubeconfig[-_.]*,*[-_]kubeconfig}.{yaml,yml}",
        "a kubeconfig",
    ),
    ("**/credentials.json", "a credentials file"),
    ("**/credentials.toml", "a credentials file"),
    ("**/credentials.xml", "a credentials file"),
    // Files named for the credentials they hold (`aws_credentials`, `.gcp-credentials.json`,
    // `config/credentials.yml`, `secrets.toml`, `api_key.txt`, `.github_token`), in the formats
    // data is kept in; source files (`credentials.rs`) and documentation are other formats.
    ("**/*[-_.]{credentials,creds}", "a credentials file"),
    (
        "**/*[-_.]{credentials,creds}.{json,yml,yaml,toml,xml,ini,cfg,conf,txt,csv,env,properties}",
        "a credentials file",
    ),
    (
        "**/credentials.{yml,yaml,ini,cfg,conf,txt,csv,properties}",
        "a credentials file",
    ),
    (
        "**/{secrets,*[-_.]secrets}.{json,yml,yaml,toml,xml,ini,cfg,conf,txt,env,properties}",
        "a secrets file",
    ),
    ("**/*password*.{txt,csv}", "a password list"),
    // Password lists kept as spreadsheets and documents are named in the plural
    // (`passwords.xlsx`), as a policy about them (`password_policy.docx`) is not; and the short
    // names people give a list (`pass.txt`, `pw.txt`, `creds.csv`, Firefox's export `logins.csv`),
    // not a word that ends in one (`bypass.txt`).
    (
        "**/*passwords*.{xls,xlsx,xlsm,ods,doc,docx,odt,rtf}",
        "a password list",
    ),
    (
        "**/{pass,passwd,pw,pwd,pwds,creds,logins}.{txt,csv}",
        "a password list",
    ),
    // A file whose extension is the word (`login.cred`, CyberArk's `psmgw.cred`, systemd's
    // encrypted credentials), not one that begins with it (`CREDITS`).
    ("**/*.cred", "a credentials file"),
    ("**/{api_key,api-key,apikey}", "an API key file"),
    ("**/{api_key,api-key,apikey}.txt", "an API key file"),
    ("**/.api[-_]key", "an API key file"),
    ("**/.*[-_]token", "a token file"),
    ("**/*[-_]{token,pat}.txt", "a token file"),
    ("**/github[-_]{token,pat}", "a GitHub token file"),
    ("**/docker[-_]config.json", "Docker registry credentials"),
    ("**/.dockerconfigjson", "Docker registry credentials"),
    // Private keys named as SSH keys are (`deploy_rsa`, `github_ed25519`), or kept without an
    // extension in a folder of keys (`certs/signing-key`).
    ("**/*[-_]{rsa,dsa,ecdsa,ed25519}", "an SSH private key"),
    (
        "**/{certs,keys,ssl,tls,secrets,private}/*[-_]key",
        "a private key file",
    ),
    ("**/client_secret*.json", "an OAuth client secret"),
    ("**/service-account*.json", "a service-account key"),
    // Keys named for the account they sign in as (`gcp-service-account.json`,
    // `ci_service_account_key.json`, `deploy-sa-key.json`, Firebase's `serviceAccountKey.json`);
    // `sa` alone is not enough (`ar-sa.json` is a locale), and any other existing `*.json` is
    // judged by what it holds.
    (
        "**/*[-_.]service[-_]{account,account[-_]key}.json",
        "a service-account key",
    ),
    (
        "**/{service_account,service_account[-_]key}.json",
        "a service-account key",
    ),
    ("**/serviceAccountKey.json", "a service-account key"),
    // Firebase's Admin SDK keys as the console names them (`PROJECT-firebase-adminsdk-ID.json`).
    (
        "**/*firebase-adminsdk*.json",
        "a Firebase Admin SDK service-account key",
    ),
    ("**/{sa,*[-_]sa}[-_]key.json", "a service-account key"),
    // gcloud's folder is refused whole: its configurations (`configurations/config_*`, chosen
    // by `active_config`) hold no secret, but written they redirect its tokens
    // (`api_endpoint_overrides`, `proxy`, `auth/credential_file_override`).
    (
        "**/.config/gcloud/**",
        "gcloud's folder: its credentials, or configurations that say where its tokens go",
    ),
    ("**/.vault-token", "a Vault token"),
    // GnuPG's folder is refused whole: its public keyring and `gpg.conf` hold no secret, but
    // written they change whose signatures are trusted (an added key, `trusted-key`) and what
    // runs (`photo-viewer`, gpg-agent.conf's `pinentry-program`, which is given the passphrase).
    (
        "**/.gnupg/**",
        "a GnuPG folder's file: its keys, or files that written change what is trusted and run",
    ),
    // pass's store is refused whole: written, its `.gpg-id` adds a key every password is
    // encrypted to from then on, and its `.extensions` run as commands of pass.
    (
        "**/.password-store/**",
        "a password store: its passwords, or the .gpg-id that says whom they are encrypted to",
    ),
    ("**/.htpasswd", "an htpasswd file"),
    ("**/*.tfstate", "Terraform state (it holds secrets)"),
    ("**/*.tfstate.backup", "Terraform state (it holds secrets)"),
    (
        "**/*.tfstate.*.backup",
        "Terraform state (it holds secrets)",
    ),
    ("**/*.tfvars", "Terraform variables (they hold secrets)"),
    (
        "**/*.tfvars.json",
        "Terraform variables (they hold secrets)",
    ),
    ("**/.terraformrc", "Terraform CLI credentials"),
    ("**/terraform.rc", "Terraform CLI credentials"),
    ("**/.tofurc", "OpenTofu CLI credentials"),
    ("**/tofu.rc", "OpenTofu CLI credentials"),
    // Every `*.env` file, whatever its stem (`prod.env`, `secrets.env`).
    ("**/*.env", "an environment file"),
    // Applications' own secrets, kept beside the code and ignored by git.
    (
        "**/local.settings.json",
        "Azure Functions settings (they hold connection strings)",
    ),
    // Cloudflare Wrangler's local secrets for `wrangler dev`, per environment
    // (`.dev.vars.staging`); `.dev.vars.example` is a template.
    ("**/.dev.vars", "Wrangler's local secrets"),
    ("**/.dev.vars.*", "Wrangler's local secrets"),
    (
        "**/wp-config.php",
        "WordPress configuration (it holds the database password)",
    ),
    (
        "**/usersecrets/*/secrets.json",
        ".NET user secrets (Secret Manager)",
    ),
    ("**/keystore.properties", "Android signing passwords"),
    ("**/android/key.properties", "Android signing passwords"),
    // adb's own key pair: whoever holds `adbkey` is let in by every device that trusts it.
    (
        "**/.android/adbkey",
        "adb's private key (every device that trusts it lets it in)",
    ),
    // fastlane's App Store Connect API key (`api_key_path`, `app_store_connect_api_key`), kept in
    // the project's `fastlane/` folder, and spaceship's saved Apple ID session.
    (
        "**/fastlane/{api[-_]key,*[-_]api[-_]key}*.json",
        "fastlane's App Store Connect API key",
    ),
    (
        "**/.fastlane/spaceship/**/cookie",
        "fastlane's Apple ID session (spaceship)",
    ),
    ("**/.vault[-_]pass*", "an Ansible vault password file"),
    // ansible-galaxy's API token for publishing collections.
    ("**/.ansible/galaxy_token", "ansible-galaxy's API token"),
    ("**/vault[-_]pass*.txt", "an Ansible vault password file"),
    ("**/acme.json", "an ACME store (it holds private keys)"),
    // Frameworks' own secret files (Phoenix, JetBrains' HTTP client, R, old Rails, Symfony 2-3,
    // FuelPHP, Visual Studio's publish profiles).
    ("**/*.secret.exs", "a Phoenix secrets file"),
    (
        "**/*.private.env.json",
        "JetBrains HTTP client's private environment",
    ),
    ("**/.httr-oauth", "R httr's OAuth tokens"),
    ("**/.Renviron", "R's environment file (it holds API keys)"),
    (
        "**/config/initializers/secret_token.rb",
        "Rails' secret token",
    ),
    // The secret key kept in a file of its own, as Django's deployment checklist shows
    // (`/etc/secret_key.txt`); a source file (`secret_key.py`) or a module's folder is another.
    (
        "**/{secret_key,secret-key,secretkey}.txt",
        "an application's secret key",
    ),
    (
        "**/*[-_]{secret_key,secret-key}.txt",
        "an application's secret key",
    ),
    (
        "**/app/config/parameters.{yml,yaml,php,ini}",
        "Symfony's parameters (they hold passwords)",
    ),
    // FuelPHP writes its encryption keys on first run into its application's folder, under the
    // framework's own `fuel/` (Laravel's and CakePHP's `config/` files are not told by name).
    ("**/fuel/app/config/crypt.php", "FuelPHP's encryption keys"),
    ("**/*.publishsettings", "Azure publish settings"),
    (
        "**/*.pubxml.user",
        "a Visual Studio publish profile's password",
    ),
    ("**/letsencrypt/accounts/**", "Let's Encrypt account keys"),
    // Certbot's DNS plugins read a provider's API token from an INI file, kept where their
    // guides put it (`/etc/letsencrypt/cloudflare.ini`, `~/.secrets/certbot/route53.ini`);
    // certbot's own `cli.ini` holds options. acme.sh saves its DNS APIs' keys in its
    // `account.conf`.
    (
        "**/letsencrypt/**/*.ini",
        "a certbot DNS plugin's credentials",
    ),
    (
        "**/.secrets/certbot/**",
        "a certbot DNS plugin's credentials",
    ),
    (
        "**/{.acme.sh,acme.sh}/account.conf",
        "acme.sh's account (it holds DNS APIs' keys)",
    ),
    // HAProxy's `crt` is one PEM file holding the certificate and its private key, so a `*.pem`
    // in its folders is its key; a CA file or chain there holds none (below).
    (
        "**/haproxy/**/*.pem",
        "HAProxy's certificate bundle (it holds the private key)",
    ),
    // Symfony's secrets vault: the decryption key beside the encrypted secrets (the public
    // `*.encrypt.public.php` only encrypts).
    (
        "**/*.decrypt.private.php",
        "Symfony's secrets decryption key",
    ),
    // The Serverless Framework's packaged service holds its environment's values resolved
    // (`${ssm:...}`, `${env:...}`), as Terraform's state does.
    (
        "**/.serverless/{serverless-state.json,cloudformation-template-*.json}",
        "Serverless' packaged state (it holds resolved secrets)",
    ),
    // helm-secrets' and sops' decrypted copies of encrypted values (`secrets.prod.yaml.dec`),
    // which hold in plain text what the committed file encrypts.
    (
        "**/secrets*.{yaml,yml,json}.dec",
        "a decrypted secrets file (helm-secrets, sops)",
    ),
    // The same decrypted by hand with the suffix before the extension (`sops -d secrets.yaml >
    // secrets.dec.yaml`, `secrets.decrypted.json`).
    (
        "**/*secret*.{dec,decrypted}.{yaml,yml,json,env}",
        "a decrypted secrets file (helm-secrets, sops)",
    ),
    // Vagrant's generated key for each machine it made.
    (
        "**/.vagrant/machines/*/*/private_key",
        "a Vagrant machine's private key",
    ),
    // Agent and model tools' own credentials.
    ("**/.claude/.credentials.json", "Claude Code credentials"),
    (
        "**/.claude.json",
        "Claude Code's settings (they hold account tokens)",
    ),
    (
        "**/claude_desktop_config.json",
        "Claude Desktop's MCP servers (they carry API keys)",
    ),
    ("**/.codex/auth.json", "Codex credentials"),
    ("**/.gemini/oauth_creds.json", "Gemini CLI credentials"),
    ("**/.gemini/google_accounts.json", "Gemini CLI accounts"),
    ("**/.qwen/oauth_creds.json", "Qwen Code credentials"),
    // VS Code's global state, where its secret storage keeps extensions' and accounts' tokens
    // (GitHub's, Copilot's, Cursor's sign-in), in VS Code and its forks and on a remote host's
    // server; a workspace's own `workspaceStorage/*/state.vscdb` holds no secret.
    (
        "**/{Code,Code - Insiders,Code - OSS,VSCodium,VSCodium - Insiders,Cursor,Windsurf}/User/globalStorage/state.vscdb*",
        "VS Code's global state (its secret storage holds tokens)",
    ),
    (
        "**/{.vscode-server,.vscode-server-insiders,.cursor-server,.windsurf-server}/data/User/globalStorage/state.vscdb*",
        "VS Code's global state (its secret storage holds tokens)",
    ),
    // JetBrains IDEs' own password safe, when it is kept in KeePass format: `c.kdbx` (denied as
    // any `*.kdbx`) and `c.pwd`, its master key, in the IDE's configuration folder (Android
    // Studio's under Google, and the old `~/.IntelliJIdea2019.3/config`).
    (
        "**/{JetBrains,Google}/*/c.pwd",
        "a JetBrains IDE's password safe key",
    ),
    ("**/.*/config/c.pwd", "a JetBrains IDE's password safe key"),
    (
        "**/.cursor/mcp.json",
        "Cursor's MCP servers (they carry API keys)",
    ),
    (
        "**/.codeium/windsurf/mcp_config.json",
        "Windsurf's MCP servers (they carry API keys)",
    ),
    ("**/github-copilot/*.json", "GitHub Copilot tokens"),
    ("**/opencode/auth.json", "opencode credentials"),
    ("**/goose/secrets.yaml", "Goose's secrets"),
    (
        "**/.continue/config.{json,yaml}",
        "Continue's configuration (it carries API keys)",
    ),
    (
        "**/{.huggingface,huggingface}/token",
        "a Hugging Face token",
    ),
    (
        "**/{.huggingface,huggingface}/stored_tokens",
        "Hugging Face tokens",
    ),
    ("**/kaggle.json", "a Kaggle API key"),
    (
        "**/.mlflow/credentials",
        "MLflow's tracking server credentials",
    ),
    // DVC's local configuration, where `dvc remote modify --local` writes a remote's
    // credentials to keep them out of the repository's `.dvc/config`.
    ("**/.dvc/config.local", "DVC's local remote credentials"),
    // Jupyter's runtime files: a server's (`jpserver-PID.json` and the `-open.html` that carries
    // its token), a kernel's connection file (its HMAC key signs the code it runs), and the
    // cookie secret; on Linux in `~/.local/share/jupyter/runtime`, macOS `~/Library/Jupyter`,
    // Windows `%APPDATA%\jupyter`.
    (
        "**/jupyter/runtime/{jpserver-*,nbserver-*,kernel-*.json,jupyter_cookie_secret,notebook_cookie_secret}",
        "a Jupyter server's or kernel's secret (its token or key)",
    ),
    // The JSON configuration `jupyter server password` writes the password's hash to (the
    // `.py` configuration, written by hand, is the person's settings).
    (
        "**/.jupyter/{jupyter_server_config,jupyter_notebook_config}.json",
        "Jupyter's password hash",
    ),
    ("**/io.datasette.llm/keys.json", "llm's API keys"),
    ("**/.modal.toml", "Modal tokens"),
    // Git hosts and version control.
    ("**/{gh,GitHub CLI}/hosts.yml", "GitHub CLI tokens"),
    ("**/glab-cli/config.yml", "GitLab CLI tokens"),
    ("**/.config/hub", "hub's GitHub tokens"),
    ("**/tea/config.yml", "Gitea CLI tokens"),
    ("**/.config/git/credentials", "git's stored credentials"),
    (
        "**/.gcm/store/**",
        "Git Credential Manager's plaintext store",
    ),
    (
        "**/{.subversion,Subversion}/auth/**",
        "Subversion's cached credentials",
    ),
    // Perforce's login tickets (`p4 login`): `~/.p4tickets`, and `p4tickets.txt` in the
    // profile folder on Windows.
    ("**/{.p4tickets,p4tickets.txt}", "Perforce's login tickets"),
    ("**/.authinfo", "an auth-source file (it holds passwords)"),
    (
        "**/.authinfo.gpg",
        "an auth-source file (it holds passwords)",
    ),
    // Cloud and infrastructure command lines.
    ("**/.aws/sso/cache/**", "AWS SSO tokens"),
    ("**/.aws/cli/cache/**", "AWS CLI session credentials"),
    // Akamai's EdgeGrid credentials (`~/.edgerc`: client secret and access token), and the
    // Fastly command line's profiles, each with its API token.
    ("**/.edgerc", "Akamai EdgeGrid credentials"),
    ("**/fastly/config.toml", "the Fastly CLI's API tokens"),
    // The Azure CLI's folder is refused whole: its `config` holds no secret, but written it
    // chooses the cloud whose endpoints receive its tokens and where extensions are installed
    // from.
    (
        "**/.azure/**",
        "the Azure CLI's folder: its tokens, or the configuration that says where they go",
    ),
    ("**/Windows Azure Powershell/**", "Azure PowerShell tokens"),
    (
        "**/{AzureRmContext.json,TokenCache.dat}",
        "Azure PowerShell tokens",
    ),
    ("**/gcloud/credentials.db", "gcloud credentials"),
    ("**/gcloud/access_tokens.db", "gcloud access tokens"),
    (
        "**/gcloud/application_default_credentials.json",
        "gcloud application default credentials",
    ),
    ("**/gcloud/legacy_credentials/**", "gcloud credentials"),
    ("**/.oci/**", "Oracle Cloud credentials and keys"),
    ("**/.bluemix/config.json", "IBM Cloud tokens"),
    ("**/.cf/config.json", "Cloud Foundry tokens"),
    ("**/.aliyun/config.json", "Alibaba Cloud credentials"),
    ("**/.tccli/*.credential", "Tencent Cloud credentials"),
    ("**/doctl/config.yaml", "DigitalOcean tokens"),
    ("**/.config/linode-cli", "Linode tokens"),
    ("**/.linode-cli", "Linode tokens"),
    ("**/hcloud/cli.toml", "Hetzner Cloud tokens"),
    ("**/scw/config.yaml", "Scaleway credentials"),
    ("**/exoscale/exoscale.toml", "Exoscale credentials"),
    ("**/.vultr-cli.yaml", "Vultr tokens"),
    ("**/.tugboat", "Tugboat's DigitalOcean token"),
    ("**/.trc", "t's Twitter tokens"),
    ("**/clouds.yaml", "OpenStack clouds (they hold passwords)"),
    ("**/openstack/secure.yaml", "OpenStack passwords"),
    ("**/.databrickscfg", "Databricks tokens"),
    (
        "**/.databricks/token-cache.json",
        "the Databricks CLI's OAuth tokens",
    ),
    // Data platforms' command lines: Prefect's profiles (its API key), Dagster+'s user token,
    // Turso's and Convex's access tokens.
    (
        "**/.prefect/profiles.toml",
        "Prefect's profiles (its API key)",
    ),
    ("**/.dagster_cloud_cli/config", "the Dagster+ CLI's token"),
    ("**/turso/settings.json", "the Turso CLI's token"),
    ("**/.convex/config.json", "the Convex CLI's access token"),
    // Airflow's simple auth manager writes its users' passwords here; the Astro CLI keeps a
    // local Airflow's connections and variables (their passwords) in `airflow_settings.yaml`,
    // which its projects leave out of git.
    (
        "**/simple_auth_manager_passwords.json*",
        "Airflow's generated passwords",
    ),
    (
        "**/airflow_settings.yaml",
        "the Astro CLI's local Airflow connections (their passwords)",
    ),
    // Ansible's convention for a group's or host's secrets: `vault.yml` beside `vars.yml`,
    // encrypted with the vault password, and kept decrypted while it is edited.
    (
        "**/{group_vars,host_vars}/**/vault.{yml,yaml}",
        "an Ansible vault's variables",
    ),
    // atuin's key, which decrypts the shell history it syncs.
    ("**/atuin/key", "atuin's sync key"),
    (
        "**/.wrangler/config/*.toml",
        "Cloudflare Wrangler's OAuth tokens",
    ),
    (
        "**/{.cloudflared,cloudflared}/cert.pem",
        "cloudflared's origin certificate (it holds a key and a token)",
    ),
    (
        "**/{.cloudflared,cloudflared}/*.json",
        "a Cloudflare tunnel's credentials",
    ),
    ("**/.fly/config.yml", "Fly.io tokens"),
    ("**/.render/cli.yaml", "Render tokens"),
    ("**/com.vercel.cli/auth.json", "Vercel tokens"),
    ("**/{.vercel,.now}/auth.json", "Vercel tokens"),
    ("**/{netlify,.netlify}/config.json", "Netlify tokens"),
    ("**/.railway/config.json", "Railway tokens"),
    ("**/.supabase/access-token", "a Supabase token"),
    // A file named for the token it holds, with no extension (PlanetScale's `access-token`,
    // Supabase's, a tool's `auth-token`): source files of such names have one.
    (
        "**/{access-token,access_token,auth-token,auth_token,refresh-token,refresh_token}",
        "a token file",
    ),
    ("**/cachix/cachix.dhall", "Cachix's auth token"),
    ("**/anaconda-client/tokens/**", "anaconda-client's tokens"),
    // Command lines built on configstore (Firebase, Snyk, ...) keep their login in its folder,
    // beside update-notifier's harmless files.
    (
        "**/configstore/*.json",
        "a command line's stored login (configstore)",
    ),
    ("**/.expo/state.json", "Expo's session"),
    (
        "**/.snowflake/{connections,config}.toml",
        "Snowflake connections",
    ),
    (
        "**/snowflake/{connections,config}.toml",
        "Snowflake connections",
    ),
    ("**/.snowsql/config", "SnowSQL connections"),
    ("**/.dbt/profiles.yml", "dbt connection profiles"),
    (
        "**/{.terraform.d,terraform.d}/credentials.tfrc.json",
        "Terraform Cloud tokens",
    ),
    ("**/.dockercfg", "Docker registry credentials"),
    (
        "**/containers/auth.json",
        "Podman and Buildah registry credentials",
    ),
    ("**/helm/registry/config.json", "Helm registry credentials"),
    ("**/helm/repositories.yaml", "Helm repository credentials"),
    ("**/.kube/**", "a kubeconfig kept beside kubectl's"),
    (
        "**/kubernetes/{admin,super-admin,kubelet,bootstrap-kubelet,controller-manager,scheduler}.conf",
        "a control plane's kubeconfig",
    ),
    (
        "**/rancher/{k3s,rke2}/*.yaml",
        "a k3s or RKE2 kubeconfig or token",
    ),
    ("**/rancher/*/server/{token,node-token}", "a k3s join token"),
    ("/run/secrets/**", "a mounted secret"),
    // systemd's credentials: the stores `LoadCredential=` and `LoadCredentialEncrypted=` read
    // from, and the folder each service is given its credentials in.
    (
        "**/{etc,run,usr/lib,usr/local/lib}/{credstore,credstore.encrypted}/**",
        "a systemd credential",
    ),
    ("/run/credentials/**", "a systemd service's credentials"),
    // Windows' own stores of a user's keys: CryptoAPI's and CNG's private keys (`Crypto/RSA`,
    // `Crypto/Keys`), beside the DPAPI master keys and Credential Manager's blobs.
    (
        "**/AppData/Roaming/Microsoft/Crypto/**",
        "a Windows private key store",
    ),
    // PowerShell's SecretStore vault, on Windows and elsewhere.
    (
        "**/{secretmanagement,.secretmanagement}/localstore/**",
        "a PowerShell SecretStore vault",
    ),
    // Single sign-on and credential brokers.
    ("**/.okta/okta.yaml", "the Okta CLI's API token"),
    ("**/.awsvault/keys/**", "aws-vault's encrypted keys"),
    // Directory and authentication servers: a KDC's principal database and its stash file,
    // SSSD's cache of users' password hashes (OpenLDAP's `slapd.conf` is judged by what it
    // holds, below).
    (
        "**/krb5kdc/{principal,principal.*,.k5.*}",
        "a Kerberos KDC's database or its master key",
    ),
    (
        "/var/lib/sss/db/**",
        "SSSD's cache (users' password hashes)",
    ),
    // SaaS and observability command lines and agents that keep their key in their own file.
    ("**/algolia/config.toml", "the Algolia CLI's API keys"),
    ("**/.contentfulrc.json", "the Contentful CLI's token"),
    ("**/sanity/config.json", "the Sanity CLI's token"),
    ("**/.sfdx/*@*.json", "a Salesforce CLI login"),
    ("**/.sf/*@*.json", "a Salesforce CLI login"),
    (
        "**/hubspot.config.{yml,yaml}",
        "the HubSpot CLI's personal access key",
    ),
    ("**/toot/config.json", "toot's Mastodon tokens"),
    (
        "**/.particle/particle.config.json",
        "the Particle CLI's token",
    ),
    ("**/.balena/token", "the balena CLI's token"),
    (
        "**/rsconnect/accounts/**/*.dcf",
        "an rsconnect account's token",
    ),
    (
        "**/.minecraft/launcher_accounts*.json",
        "Minecraft's launcher sign-ins",
    ),
    // An IRC bouncer's users (password hashes and network passwords) and its key.
    ("**/.znc/configs/znc.conf", "ZNC's users and passwords"),
    ("**/.znc/znc.pem", "ZNC's private key"),
    // Private keys by their own extension (a Machine Owner Key's `MOK.priv`).
    ("**/*.priv", "a private key"),
    // Wallets and nodes: bitcoind's RPC cookie, geth's node key, Monero's wallet files, a
    // Lightning node's macaroons.
    ("**/.bitcoin/**/.cookie", "bitcoind's RPC cookie"),
    ("**/geth/nodekey", "an Ethereum node's private key"),
    ("**/Monero/wallets/**/*.keys", "a Monero wallet's keys"),
    ("**/*.macaroon", "a Lightning node's macaroon"),
    // Self-hosted servers: Home Assistant's users and tokens, Nextcloud's and Gitea's
    // configurations (database passwords, secret keys), Synapse's (registration and macaroon
    // secrets), the mail servers' password maps, Asterisk's SIP and manager passwords.
    (
        "**/.storage/{auth,auth_provider.homeassistant}",
        "Home Assistant's users and tokens",
    ),
    ("**/gitea/**/app.ini", "Gitea's configuration (its secrets)"),
    ("**/postfix/sasl_passwd", "Postfix's relay passwords"),
    ("**/postfix/sasl_passwd.*", "Postfix's relay passwords"),
    (
        "**/dovecot/{users,passwd,passwd.*}",
        "Dovecot's users and passwords",
    ),
    (
        "**/asterisk/{sip,pjsip,iax,manager,voicemail}.conf",
        "Asterisk's accounts and passwords",
    ),
    // An onion service's key, and backups' and repositories' encryption keys.
    ("**/hs_ed25519_secret_key", "an onion service's private key"),
    ("**/borg/keys/**", "a Borg repository's key"),
    ("**/.git/git-crypt/keys/**", "git-crypt's key"),
    // Consul's agent keeps the ACL tokens set through its API in its data folder.
    ("**/acl-tokens.json", "Consul's ACL tokens"),
    ("/var/run/secrets/**", "a mounted secret"),
    (
        "**/serviceaccount/token",
        "a Kubernetes service-account token",
    ),
    ("**/.talos/config", "a Talos client configuration"),
    ("**/talosconfig", "a Talos client configuration"),
    ("**/{.argocd,.config/argocd}/config", "Argo CD tokens"),
    ("**/.chef/credentials", "Chef credentials"),
    // Configuration management's own keys: a Chef node's and a workstation's client and
    // validator keys (in `/etc/chef` or `~/.chef`), Salt's master and minion keys (the public
    // halves, `.pub`, are not credentials), Puppet's agent and CA keys.
    ("**/{.chef,etc/chef}/*.pem", "a Chef client key"),
    ("**/salt/pki/**/*.pem", "a Salt master's or minion's key"),
    (
        "**/puppetlabs/puppet/ssl/{private_keys,ca/private}/**",
        "a Puppet private key",
    ),
    ("**/.doppler/.doppler.yaml", "Doppler tokens"),
    ("**/ngrok.yml", "ngrok's authtoken"),
    ("**/stripe/config.toml", "Stripe CLI keys"),
    ("**/.sentryclirc", "a Sentry auth token"),
    // Datadog's command line (`~/.dogrc`) and its agent's configuration, which holds the API
    // key (`/etc/datadog-agent`, `~/.datadog-agent` on macOS, `C:\ProgramData\Datadog`).
    ("**/.dogrc", "Datadog's API and application keys"),
    (
        "**/{datadog-agent,.datadog-agent,ProgramData/Datadog}/datadog.yaml",
        "the Datadog agent's configuration (it holds the API key)",
    ),
    // Developer tools' accounts: WakaTime's API key, PlatformIO's signed-in session.
    ("**/.wakatime.cfg", "WakaTime's API key"),
    (
        "**/.platformio/appstate.json",
        "PlatformIO's account session",
    ),
    ("**/{.mc,.mcli}/config.json", "MinIO client credentials"),
    ("**/.jfrog/jfrog-cli.conf*", "JFrog CLI credentials"),
    ("**/.s3cfg", "s3cmd credentials"),
    // Smaller clouds' command lines: OVH's API keys, Backblaze B2's account and its token, the
    // InfluxDB command line's tokens.
    ("**/.ovh.conf", "OVH API credentials"),
    (
        "**/.b2_account_info",
        "the Backblaze B2 command line's account and token",
    ),
    (
        "**/.influxdbv2/configs",
        "the InfluxDB command line's tokens",
    ),
    // Python's keyring kept in files (keyrings.alt): a plaintext one, and an encrypted one.
    (
        "**/python_keyring/{keyring_pass,crypted_pass}.cfg",
        "a Python keyring's passwords",
    ),
    ("**/.boto", "boto credentials"),
    ("**/rclone.conf", "rclone remotes (they hold credentials)"),
    // CI agents and command lines.
    ("**/.circleci/cli.yml", "CircleCI CLI token"),
    ("**/.travis/config.yml", "Travis CLI token"),
    ("**/buildkite-agent.cfg", "a Buildkite agent token"),
    // The Buildkite command line's organizations, each with its API token.
    ("**/.config/bk.yaml", "the Buildkite CLI's API tokens"),
    (
        "**/{gitlab-runner,.gitlab-runner}/config.toml",
        "GitLab Runner tokens",
    ),
    ("**/.credentials", "a CI agent's or sbt's credentials"),
    ("**/.credentials_rsaparams", "a CI agent's private key"),
    ("**/secrets/hudson.util.Secret", "Jenkins' secret key"),
    (
        "**/secrets/initialAdminPassword",
        "Jenkins' first admin password",
    ),
    ("**/.flyrc", "Concourse fly tokens"),
    ("**/buildAgent.properties", "a TeamCity agent token"),
    // Package managers.
    ("**/.cargo/credentials", "cargo registry tokens"),
    ("**/.cargo/credentials.toml", "cargo registry tokens"),
    ("**/.yarnrc", "a Yarn configuration (it carries tokens)"),
    (
        "**/etc/npmrc",
        "npm's global configuration (it carries tokens)",
    ),
    (
        "**/.bunfig.toml",
        "bun's global configuration (it carries tokens)",
    ),
    (
        "**/pip.conf",
        "a pip configuration (it carries index credentials)",
    ),
    (
        "**/pip.ini",
        "a pip configuration (it carries index credentials)",
    ),
    ("**/pypoetry/auth.toml", "Poetry credentials"),
    ("**/gem/credentials", "RubyGems credentials"),
    (
        "**/.bundle/config",
        "Bundler settings (they hold source credentials)",
    ),
    ("**/{.composer,composer}/auth.json", "Composer credentials"),
    (
        "**/.m2/settings.xml",
        "Maven settings (they hold server passwords)",
    ),
    ("**/settings-security.xml", "Maven's master password"),
    (
        "**/.gradle/gradle.properties",
        "Gradle properties (they hold publishing credentials)",
    ),
    (
        "**/NuGet/NuGet.Config",
        "NuGet sources (they hold API keys)",
    ),
    // The Azure Artifacts credential provider's cache of feed tokens (NuGet, and pip's
    // artifacts-keyring through it).
    (
        "**/MicrosoftCredentialProvider/SessionTokenCache.dat",
        "the Azure Artifacts credential provider's tokens",
    ),
    // pnpm's global configuration, an npmrc by another name (Linux `~/.config/pnpm/rc`, macOS
    // `~/Library/Preferences/pnpm/rc`, Windows `%LOCALAPPDATA%\pnpm\config\rc`).
    (
        "**/pnpm/{rc,config/rc}",
        "pnpm's global configuration (it carries tokens)",
    ),
    // Hex's API key (`~/.hex`, or the XDG folder when `MIX_XDG` is set).
    ("**/{.hex,hex}/hex.config", "Hex's API key"),
    ("**/pub-credentials.json", "Dart pub credentials"),
    ("**/pub-tokens.json", "Dart pub tokens"),
    // Conan's remotes' logins: 1.x keeps the user and token in the cache's `.conan.db`, 2.x
    // the remotes' passwords in `credentials.json`.
    ("**/.conan/.conan.db", "Conan's remote logins"),
    ("**/.conan2/credentials.json", "Conan's remote passwords"),
    // Password managers and keyrings.
    (
        "**/{Bitwarden,Bitwarden CLI}/data.json",
        "a Bitwarden vault",
    ),
    ("**/{.op,.config/op}/config", "1Password CLI accounts"),
    // 1Password's app keeps its vaults' copy in SQLite: 8's `1password.sqlite` (Linux
    // `~/.config/1Password`, macOS its Group Container's `1Password/Data`, Windows
    // `%LOCALAPPDATA%\1Password\data`), 7's `1Password10.sqlite` and `OnePassword.sqlite`.
    (
        "**/1Password*/**/{1password,onepassword}*.sqlite*",
        "1Password's vaults",
    ),
    ("**/*.{1pux,1pif}", "a 1Password export (unencrypted)"),
    ("**/gopass/stores/**", "a gopass store"),
    ("**/{.lpass,.local/share/lpass}/**", "LastPass CLI's vault"),
    ("**/*.kdbx", "a KeePass database"),
    // Cryptocurrency wallets: Bitcoin Core's and its forks' `wallet.dat`, Electrum's wallets
    // (`~/.electrum/wallets`, `%APPDATA%\Electrum\wallets`, a testnet's), Exodus' wallet folder,
    // geth's key files (`keystore/UTC--...`, Web3 Secret Storage), the Solana CLI's keypair, and
    // MetaMask's vault in a Chromium browser's extension storage (by its extension id).
    ("**/wallet.dat", "a cryptocurrency wallet"),
    (
        "**/{.electrum,.electrum-*,Electrum,Electrum-*}/{wallets,*/wallets}/**",
        "an Electrum wallet",
    ),
    ("**/exodus.wallet/**", "Exodus' wallet"),
    (
        "**/keystore/UTC--*",
        "an Ethereum key file (Web3 Secret Storage)",
    ),
    ("**/.config/solana/id.json", "the Solana CLI's keypair"),
    (
        "**/Local Extension Settings/nkbihfbeogaeaoehlefnkodbefgpgknn/**",
        "MetaMask's vault",
    ),
    ("**/*.keyx", "a KeePassXC key file"),
    ("**/kwalletd/**", "a KDE wallet"),
    ("**/*.kwl", "a KDE wallet"),
    // Browsers (Chromium's family by its profiles' file names, Firefox's family by its
    // profile folders) and file-transfer clients.
    (
        "**/{Login Data,Login Data-journal,Login Data For Account,Login Data For Account-journal}",
        "a browser's saved passwords",
    ),
    (
        "**/{Web Data,Web Data-journal}",
        "a browser's saved cards and tokens",
    ),
    ("**/Local State", "a browser's encryption key"),
    // Yandex's names for the same files.
    (
        "**/{Ya Passman Data,Ya Credit Cards}*",
        "a browser's saved passwords or cards",
    ),
    (
        "**/{Default,Profile *,Guest Profile}/{Cookies,Cookies-journal}",
        "a browser's cookies",
    ),
    (
        "**/Network/{Cookies,Cookies-journal}",
        "a browser's cookies",
    ),
    (
        "**/{.mozilla/*,Profiles,.thunderbird,.librewolf,.waterfox}/*/{logins.json,logins-backup.json,signons.sqlite,cookies.sqlite}",
        "a Mozilla profile's passwords or cookies",
    ),
    (
        "**/*.default*/{logins.json,logins-backup.json,signons.sqlite,cookies.sqlite}",
        "a Mozilla profile's passwords or cookies",
    ),
    // NSS's key databases: a Mozilla profile's, or Chromium's on Linux (~/.pki/nssdb).
    ("**/{key3.db,key4.db}", "an NSS key database"),
    ("**/wand.dat", "Opera's saved passwords"),
    ("**/Library/Cookies/**", "Safari's cookies"),
    ("**/*.binarycookies", "Safari's cookies"),
    (
        "**/{filezilla,.filezilla}/{sitemanager,recentservers}.xml",
        "FileZilla's saved passwords",
    ),
    ("**/.gftp/{bookmarks,gftprc}", "gFTP's saved passwords"),
    ("**/Cyberduck/**/user.config", "Cyberduck's saved passwords"),
    (
        "**/FTP Navigator/Ftplist.txt",
        "FTP Navigator's saved passwords",
    ),
    // Remote desktop managers.
    (
        "**/mRemoteNG/confCons.xml*",
        "mRemoteNG's saved connections",
    ),
    (
        "**/RDCMan.settings",
        "Remote Desktop Connection Manager's settings",
    ),
    (
        "**/*.rdg",
        "Remote Desktop Connection Manager's saved connections",
    ),
    ("**/.vnc/passwd", "a VNC password"),
    (
        "**/MobaXterm.ini",
        "MobaXterm's saved sessions and passwords",
    ),
    (
        "**/*.{rtsz,rtsx}",
        "a Royal TS document (it holds saved credentials)",
    ),
    (
        "**/*.tvopt",
        "TeamViewer's exported options (they hold its password)",
    ),
    // Remmina's profiles hold each connection's password, encrypted with the `secret` its
    // `remmina.pref` keeps.
    (
        "**/*.remmina",
        "a Remmina profile (it holds the connection's password)",
    ),
    (
        "**/remmina/remmina.pref",
        "Remmina's settings (they hold the key to its saved passwords)",
    ),
    // Chat apps' sessions: a Chromium or Electron app's Local Storage (Discord's, Slack's,
    // Teams' tokens, and the sites' a browser keeps), Telegram Desktop's local key and its first
    // account's session (`tdata/key_datas`, `D877F783D5D3EF8C*`), a Telethon or Pyrogram session
    // (`NAME.session`, SQLite with the account's auth key), Signal Desktop's `config.json`, which
    // holds its database's key, in the app's folder on Linux (also Flatpak's), macOS and
    // Windows.
    (
        "**/Local Storage/leveldb/**",
        "a Chromium or Electron app's Local Storage (it holds sign-in tokens)",
    ),
    (
        "**/tdata/{key_data*,D877F783D5D3EF8C*}",
        "Telegram Desktop's session",
    ),
    (
        "**/tdata/D877F783D5D3EF8C*/**",
        "Telegram Desktop's session",
    ),
    (
        "**/*.{session,session-journal}",
        "a Telegram client library's session (Telethon, Pyrogram)",
    ),
    (
        "**/{.config,Application Support,AppData/Roaming}/{Signal,Signal Beta}/config.json",
        "Signal Desktop's database key",
    ),
    (
        "**/org.signal.Signal/config/Signal/config.json",
        "Signal Desktop's database key",
    ),
    ("**/.twilio-cli/config.json", "Twilio CLI's API keys"),
    // Chat and mail clients' accounts.
    (
        "**/.purple/accounts.xml",
        "Pidgin's accounts (with passwords)",
    ),
    (
        "**/{.xchat2,xchat2,hexchat}/servlist*.conf",
        "an IRC client's server passwords",
    ),
    ("**/.irssi/config", "Irssi's server passwords"),
    (
        "**/{.muttrc,.mutt/muttrc}",
        "Mutt's configuration (it holds mail passwords)",
    ),
    (
        "**/{psi,psi+}/profiles/*/accounts.xml",
        "Psi's accounts (with passwords)",
    ),
    (
        "**/.claws-mail/{passwordstorerc,accountrc}",
        "Claws Mail's passwords",
    ),
    // Database tools' saved connections.
    ("**/.dbvis/**/dbvis.xml", "DbVisualizer's saved connections"),
    (
        "**/.squirrel-sql/SQLAliases*.xml",
        "SQuirreL's saved connections",
    ),
    (
        "**/{.3T,robomongo}/**/{robo3t,robomongo,studio3t}.json",
        "Robo 3T's saved connections",
    ),
    ("**/pgadmin4.db", "pgAdmin's saved passwords"),
    // SQL Server Management Studio's saved connections: SqlStudio.bin up to version 17,
    // UserSettings.xml since 18.
    (
        "**/SQL Server Management Studio/**/{SqlStudio.bin,UserSettings.xml}",
        "SQL Server Management Studio's saved passwords",
    ),
    (
        "**/.dbeaver/credentials-config.json",
        "DBeaver's saved passwords",
    ),
    (
        "**/.dbeaver-data-sources*.xml",
        "DBeaver's saved connections",
    ),
    ("**/.recon-ng/keys.db", "recon-ng's API keys"),
    (
        "**/org.apache.directory.studio.connection.core/connections.xml",
        "Apache Directory Studio's saved connections",
    ),
    (
        "**/KeePass/ProtectedUserKey.bin",
        "KeePass's Windows account key",
    ),
    // Password safes and key files of other managers and systems (Password Safe, KeePass 1,
    // 1Password's old vaults, old KDE wallets and GNOME keyrings, BitLocker's recovery and TPM
    // keys, Pidgin's OTR key).
    ("**/*.psafe3", "a Password Safe database"),
    ("**/*.kdb", "a KeePass 1 database"),
    ("**/*.agilekeychain", "a 1Password vault"),
    ("**/*.kwallet", "a KDE wallet"),
    ("**/.gnome2/keyrings/**", "a GNOME keyring"),
    ("**/*.bek", "a BitLocker recovery key"),
    ("**/*.keypair", "a key pair"),
    ("**/*.sdtid", "an RSA SecurID software token (its seed)"),
    ("**/otr.private_key", "an OTR private key"),
    ("**/TTYPlus/mtputty.xml", "MTPuTTY's saved sessions"),
    ("**/McAfee/**/SiteList.xml", "McAfee's update credentials"),
    (
        "**/o.jdeveloper.db.connection*/connections.xml",
        "SQL Developer's saved connections",
    ),
    ("**/WinSCP.ini", "WinSCP's saved sessions"),
    ("**/sftp-config.json", "Sublime SFTP's saved password"),
    ("**/proftpdpasswd", "ProFTPd's passwords"),
    ("**/ventrilo_srv.ini", "a Ventrilo server's password"),
    (
        "**/jenkins.plugins.publish_over_ssh.BapSshPublisherPlugin.xml",
        "Jenkins' SSH publishing keys",
    ),
    (
        "**/LocalSettings.php",
        "MediaWiki's settings (they hold passwords)",
    ),
    (
        "**/*.cscfg",
        "an Azure service configuration (it holds keys)",
    ),
    // Networks.
    (
        "**/wireguard/**/*.conf",
        "a WireGuard configuration (it holds the private key)",
    ),
    (
        "**/wg[0-9]*.conf",
        "a WireGuard configuration (it holds the private key)",
    ),
    // The key files the WireGuard guide makes (`wg genkey | tee privatekey`, `wg0.privatekey`),
    // and a wg-quick configuration downloaded from a VPN provider under its server's name
    // (Mullvad's `se-got-wg-001.conf`); any other existing `*.conf` is judged by what it holds.
    (
        "**/{privatekey,presharedkey}",
        "a WireGuard private or pre-shared key",
    ),
    (
        "**/*[-_.]{privatekey,presharedkey}",
        "a WireGuard private or pre-shared key",
    ),
    (
        "**/*[-_]wg[-_][0-9]*.conf",
        "a WireGuard configuration (it holds the private key)",
    ),
    ("**/*.ovpn", "an OpenVPN profile (it holds keys)"),
    // The file OpenVPN's `auth-user-pass` reads a VPN account's name and password from, in the
    // folders OpenVPN keeps its configurations in.
    (
        "**/openvpn/**/{auth,auth-user-pass,auth_user_pass,userpass,user-pass,login,credentials,passwd,pass}.txt",
        "OpenVPN's saved account password",
    ),
    (
        "**/openvpn/**/{auth,auth-user-pass,auth_user_pass,userpass,user-pass,credentials}",
        "OpenVPN's saved account password",
    ),
    (
        "**/openvpn/**/{auth,login,userpass,credentials}.conf",
        "OpenVPN's saved account password",
    ),
    (
        "**/*.tblk",
        "a Tunnelblick VPN configuration (it holds keys)",
    ),
    (
        "**/NetworkManager/system-connections/**",
        "saved network passwords",
    ),
    ("**/*.nmconnection", "saved network passwords"),
    ("**/wpa_supplicant*.conf", "saved Wi-Fi passwords"),
    ("**/tailscaled.state", "Tailscale's node key"),
    ("**/identity.secret", "a ZeroTier identity"),
    ("**/ppp/{chap,pap}-secrets", "PPP passwords"),
    ("**/*.secrets", "a secrets file (IPsec, rsync)"),
    ("**/*.psk", "a pre-shared key"),
    ("**/racoon/psk.txt", "racoon's pre-shared keys"),
    ("**/Wlansvc/Profiles/**", "Windows' saved Wi-Fi passwords"),
    ("**/ddclient.conf", "ddclient's dynamic DNS password"),
    ("**/.smbcredentials", "SMB credentials"),
    // Network devices' configurations (Cisco, Arista, and the backups tools such as RANCID and
    // Oxidized keep, or a networking tool's test fixtures), which hold enable secrets, SNMP
    // communities and pre-shared keys; Cisco's own copy to TFTP is `HOSTNAME-confg`.
    (
        "**/{running-config,startup-config}",
        "a network device's configuration (it holds its secrets)",
    ),
    (
        "**/{running-config,startup-config}.{cfg,conf,txt}",
        "a network device's configuration (it holds its secrets)",
    ),
    (
        "**/*-confg",
        "a network device's configuration (it holds its secrets)",
    ),
    ("**/smbpasswd", "Samba's password file"),
    // Age and SOPS keys.
    ("**/sops/age/**", "SOPS age keys"),
    ("**/.tsh/keys/**", "Teleport keys"),
    // System package managers' repository credentials.
    (
        "**/apt/{auth.conf,auth.conf.d/**}",
        "apt's repository credentials",
    ),
    (
        "**/zypp/credentials.d/**",
        "zypper's repository credentials",
    ),
    // Database clients.
    ("**/.pgpass", "PostgreSQL passwords"),
    ("**/postgresql/pgpass.conf", "PostgreSQL passwords"),
    (
        "**/.pg_service.conf",
        "PostgreSQL services (they hold passwords)",
    ),
    ("**/.my.cnf", "MySQL client credentials"),
    ("**/.mylogin.cnf", "MySQL login paths"),
    ("**/mysql/debian.cnf", "MySQL maintenance credentials"),
    ("**/.psql_history", "a psql history"),
    ("**/.mysql_history", "a MySQL history"),
    ("**/.rediscli_history", "a redis-cli history"),
    ("**/.sqlite_history", "an SQLite history"),
    ("**/.clickhouse-client-history", "a ClickHouse history"),
    ("**/.dbshell", "a MongoDB shell history"),
    ("**/mongosh/*history*", "a MongoDB shell history"),
    // Database clients' and servers' saved passwords: MongoDB Compass' connections (one file
    // each since 1.39), cqlsh's `[authentication]` and its credentials file, the ClickHouse
    // client's configuration (the server's `config.xml` holds none), a Redis or Valkey ACL file
    // (`aclfile /etc/redis/users.acl`, its users' password hashes), a JAAS configuration (Kafka's
    // and ZooKeeper's SASL logins, with their passwords), and RabbitMQ's exported definitions
    // (its users' password hashes) in its folders; any other existing `definitions.json` is
    // judged by what it holds.
    (
        "**/MongoDB Compass/Connections/*.json",
        "MongoDB Compass' saved connections",
    ),
    ("**/.cassandra/{cqlshrc,credentials}", "cqlsh's credentials"),
    (
        "**/{.clickhouse-client,clickhouse-client}/config.{xml,yaml,yml}",
        "the ClickHouse client's configuration (it holds the password)",
    ),
    (
        "**/users.acl",
        "a Redis ACL file (its users' password hashes)",
    ),
    (
        "**/{redis,valkey}/**/*.acl",
        "a Redis ACL file (its users' password hashes)",
    ),
    (
        "**/*jaas*.conf",
        "a JAAS configuration (it holds SASL passwords)",
    ),
    (
        "**/rabbitmq/**/definitions.json",
        "RabbitMQ's definitions (its users' password hashes)",
    ),
    (
        "**/*rabbit*[-_.]definitions.json",
        "RabbitMQ's definitions (its users' password hashes)",
    ),
    // Oracle wallets: the auto-login wallet opens without a password, and the PKCS#12 one
    // (denied as any `*.p12`) has its PEM export.
    ("**/cwallet.sso", "an Oracle auto-login wallet"),
    ("**/ewallet.pem", "an Oracle wallet"),
    // Shell and interpreter histories (commands carry tokens).
    // Every dotfile history (`.bash_history`, `.ash_history`, `.psql_history`, ...).
    ("**/.*_history", "a command history"),
    ("**/.*-history", "a command history"),
    ("**/.history", "a shell history"),
    (
        "**/.local/share/mc/history",
        "Midnight Commander's command history",
    ),
    ("**/.bash_history", "a shell history"),
    ("**/.zsh_history", "a shell history"),
    ("**/.zhistory", "a shell history"),
    ("**/.histfile", "a shell history"),
    ("**/.sh_history", "a shell history"),
    ("**/fish_history", "a shell history"),
    ("**/PSReadLine/*_history.txt", "a PowerShell history"),
    ("**/.python_history", "a Python history"),
    ("**/.ipython/**/history.sqlite", "an IPython history"),
    ("**/.node_repl_history", "a Node.js history"),
    ("**/.irb_history", "a Ruby history"),
    ("**/.pry_history", "a Ruby history"),
    ("**/.Rhistory", "an R history"),
    // Mail clients' passwords.
    ("**/.msmtprc", "msmtp's mail passwords"),
    ("**/.fetchmailrc", "fetchmail's mail passwords"),
    // isync's mailboxes (`Pass`), and WeeChat's secured data (its IRC and relay passwords).
    ("**/.mbsyncrc", "isync's mail passwords"),
    ("**/.config/isyncrc", "isync's mail passwords"),
    (
        "**/{weechat,.weechat}/sec.conf",
        "WeeChat's secured passwords",
    ),
    // aerc's accounts (their `source-cred-cmd` or a password in the URL).
    ("**/aerc/accounts.conf", "aerc's mail accounts"),
    // Game launchers' saved sign-ins: Steam's sentry files (`ssfn*`, which spare a machine the
    // second factor) and Epic's remembered login, kept in its `GameUserSettings.ini`.
    ("**/{Steam,steam}/ssfn*", "Steam's saved sign-in"),
    (
        "**/EpicGamesLauncher/Saved/Config/*/GameUserSettings.ini",
        "the Epic Games Launcher's remembered sign-in",
    ),
    // The operating system's secrets.
    // The system's own files, also inside another root (a container's, WSL's, a chroot's).
    (
        "**/etc/{shadow,shadow-,gshadow,gshadow-}",
        "the system's password hashes",
    ),
    // BSD's password database and its source (`/etc/pwd.db` holds no hashes), AIX's hashes.
    (
        "**/etc/{master.passwd,spwd.db}",
        "the system's password hashes",
    ),
    ("**/etc/security/passwd", "the system's password hashes"),
    (
        "**/etc/security/opasswd",
        "the system's old password hashes",
    ),
    ("**/etc/kcpassword", "macOS' automatic login password"),
    (
        "**/dslocal/nodes/*/users/*.plist",
        "a macOS account's password hash",
    ),
    ("**/samba/private/**", "Samba's secrets"),
    ("**/.google_authenticator", "a TOTP secret"),
    ("**/.erlang.cookie", "an Erlang distribution cookie"),
    ("**/tomcat-users.xml", "Tomcat's users and passwords"),
    ("**/gitlab-secrets.json", "GitLab's secrets"),
    ("**/.roadtools_auth", "ROADtools' Azure tokens"),
    ("**/concourse/*_key", "a Concourse key"),
    ("**/kubelet/pki/**", "the kubelet's keys"),
    (
        "**/volumes/{kubernetes.io~secret,kubernetes.io~projected}/**",
        "a Secret mounted into a pod",
    ),
    ("**/microk8s/*/credentials/**", "MicroK8s credentials"),
    ("**/ntds.dit", "Active Directory's database"),
    // Security tools' records of what they took or cracked: secretsdump's dumped hashes
    // (`-outputfile NAME` writes `NAME.ntds`, `.ntds.cleartext`, `.ntds.kerberos`), John the
    // Ripper's and hashcat's pot files of cracked passwords (`john.pot`, `hashcat.potfile`, one
    // named by `--pot`), a cracker's output named as its guides name it (`-o cracked.txt`),
    // Metasploit's database login, loot and console history, and ProjectDiscovery tools' API
    // keys (subfinder's, uncover's, cloudlist's and notify's `provider-config.yaml`). A `*.pot`
    // is gettext's template as often, and a `loot/` folder a game's.
    ("**/*.ntds", "secretsdump's dumped hashes"),
    (
        "**/*.ntds.{cleartext,kerberos}",
        "secretsdump's dumped keys",
    ),
    ("**/john.pot", "John the Ripper's cracked passwords"),
    ("**/.john/*.pot", "John the Ripper's cracked passwords"),
    ("**/*.potfile", "hashcat's cracked passwords"),
    ("**/*cracked*.{txt,csv,lst}", "cracked passwords"),
    (
        "**/.msf4/{database.yml,history}",
        "Metasploit's database login or console history",
    ),
    ("**/.msf4/loot/**", "Metasploit's loot"),
    (
        "**/{subfinder,uncover,cloudlist,notify}/provider-config.yaml",
        "a ProjectDiscovery tool's API keys",
    ),
    // A dump of LSASS's memory holds the signed-in accounts' hashes and tickets (Task Manager's
    // `lsass.DMP`, procdump's `lsass.exe_240101_120000.dmp`).
    (
        "**/lsass*.{dmp,mdmp}",
        "a memory dump of LSASS (it holds logged-on credentials)",
    ),
    // Windows servers' stores of service accounts' passwords: CyberArk's vault and component
    // credential files, a Microsoft Deployment Toolkit share's settings (domain-join and
    // network-access passwords), the variables of a Configuration Manager PXE boot (its network
    // access account).
    ("**/{Vault,Conf}/*.pass", "a CyberArk credential file"),
    (
        "**/Control/{CustomSettings,Bootstrap}.ini",
        "a deployment share's settings (they hold domain-join passwords)",
    ),
    (
        "**/*.boot.var",
        "a PXE boot's media variables (they hold its network access account)",
    ),
    (
        "**/{Panther,Sysprep}/**/unattend*.xml",
        "a Windows answer file (it holds passwords)",
    ),
    (
        "**/autounattend.xml",
        "a Windows answer file (it holds passwords)",
    ),
    (
        "**/sysprep.{inf,xml}",
        "a Windows answer file (it holds passwords)",
    ),
    (
        "**/Policies/*/{Machine,User}/Preferences/**/*.xml",
        "Group Policy preferences (they hold passwords)",
    ),
    (
        "**/config/RegBack/**",
        "a backup of Windows' registry hives",
    ),
    (
        "**/repair/{SAM,SECURITY,SYSTEM}",
        "a backup of Windows' registry hives",
    ),
    ("**/ws_ftp.ini", "WS_FTP's saved sites"),
    ("**/sss/secrets/**", "SSSD's secrets"),
    (
        "**/*.secret",
        "a secret (an LDAP bind password, a secret key)",
    ),
    ("**/.Xauthority", "an X11 authority cookie"),
    // BlueZ's bond with each paired device (`/var/lib/bluetooth/ADAPTER/DEVICE/info`): its link
    // and long-term keys, with which the device can be impersonated or its traffic read.
    (
        "**/var/lib/bluetooth/*/*/info",
        "a Bluetooth pairing's link keys",
    ),
    // Key agents' sockets: whoever may connect to one signs and decrypts with the keys it holds
    // (ssh-agent's `$TMPDIR/ssh-X/agent.PID`, gpg-agent's `S.gpg-agent*`, macOS launchd's
    // `com.apple.launchd.*/Listeners`, GNOME Keyring's and gcr's, systemd's user ssh-agent,
    // 1Password's, Bitwarden's and Secretive's).
    (
        "**/ssh-*/agent.[0-9]*",
        "ssh-agent's socket (it signs with the keys)",
    ),
    (
        "**/S.gpg-agent*",
        "gpg-agent's socket (it signs with the keys)",
    ),
    (
        "**/com.apple.launchd.*/Listeners",
        "macOS' ssh-agent socket (it signs with the keys)",
    ),
    (
        "/run/user/*/{keyring/ssh,gcr/ssh,openssh_agent,ssh-agent.socket}",
        "an ssh-agent socket (it signs with the keys)",
    ),
    (
        "**/{.1password,*.com.1password/t}/agent.sock",
        "1Password's SSH agent socket (it signs with the keys)",
    ),
    (
        "**/.bitwarden-ssh-agent.sock",
        "Bitwarden's SSH agent socket (it signs with the keys)",
    ),
    (
        "**/com.maxgoedjen.Secretive.SecretAgent/Data/socket.ssh",
        "Secretive's SSH agent socket (it signs with the keys)",
    ),
    ("**/mosquitto/passwd", "Mosquitto's passwords"),
    ("**/neo4j/**/dbms/auth", "Neo4j's users and passwords"),
    // Files whose change lets someone in, like authorized_keys.
    ("**/{.rhosts,.shosts,hosts.equiv}", "a host trust file"),
    (
        "**/{known_tokens,basic_auth,static-tokens}.csv",
        "a Kubernetes API server's static tokens",
    ),
    ("**/Library/Keychains/**", "a macOS keychain"),
    ("**/*.keychain", "a keychain"),
    ("**/*.keychain-db", "a keychain"),
    ("**/.local/share/keyrings/**", "a GNOME keyring"),
    ("/proc/**/environ", "a process's environment"),
    ("/proc/**/cmdline", "a process's command line"),
    (
        "**/System32/config/{SAM,SECURITY,SYSTEM}",
        "a Windows registry hive of secrets",
    ),
    (
        "**/AppData/*/Microsoft/{Credentials,Protect,Vault}/**",
        "Windows' stored credentials and their keys",
    ),
    (
        "**/AppData/Roaming/gnupg/**",
        "a GnuPG folder's file: its keys, or files that written change what is trusted and run",
    ),
];

/// What an existing file of a name in [`DENIED_UNTIL_READ`] must hold to be denied.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Holding {
    /// A Kubernetes Secret with a value written out under `data:` or `stringData:` (not a Helm
    /// template's `{{ }}`, not a Sealed Secret).
    KubernetesSecret,
    /// A secret assigned or defined as a string literal (`SECRET_KEY = '...'`,
    /// `#define SECRET_PASS "..."`, not an empty one, a placeholder or one read from the
    /// environment), a private key, or anything the scanner finds.
    LiteralSecret,
}

/// Names that are credential files by name until they exist, and then only if what they hold
/// says so: most hold a secret written out, but some are the same file with the values left
/// empty or read from elsewhere, or another project's source of that name. (glob, what it is,
/// what an existing one must hold.)
pub(super) const DENIED_UNTIL_READ: &[(&str, &str, Holding)] = &[
    // A Kubernetes Secret manifest kept as a kustomize base or beside a deployment names itself
    // `secret.yaml`, or by what it holds (`db-secret.yaml`, `app-secrets.yml`); a Helm chart's
    // templates render one from values, and a SealedSecret or an ExternalSecret holds no value
    // (below).
    (
        "**/{secret,secrets,*[-_]secret,*[-_]secrets}.{yaml,yml}",
        "a Kubernetes Secret manifest",
        Holding::KubernetesSecret,
    ),
    // Flask's instance folder is where its guide keeps the secret key and the database's
    // password, out of the repository (`app.config.from_pyfile('config.py')`).
    (
        "**/instance/config.py",
        "a Flask instance's configuration (its secret key)",
        Holding::LiteralSecret,
    ),
    // A sketch's or a firmware's secrets header, as Arduino's `arduino_secrets.h` is (Wi-Fi
    // passwords, device keys); a library's `credentials.h` (gRPC's) declares types, and is not
    // named.
    (
        "**/{secrets,*[-_]secrets,wifi[-_]credentials}.h",
        "a sketch's or firmware's secrets header",
        Holding::LiteralSecret,
    ),
    // PHP applications' own configurations, with the database's password and salts: Drupal's
    // `settings.php`, Magento's `app/etc/env.php`; a distribution's default is another file.
    (
        "**/sites/*/{settings.php,settings.local.php}",
        "a Drupal site's settings (its database password)",
        Holding::LiteralSecret,
    ),
    (
        "**/app/etc/env.php",
        "Magento's configuration (its keys and database password)",
        Holding::LiteralSecret,
    ),
    // Ghost's production configuration holds its database's and mail's passwords.
    (
        "**/config.production.json",
        "Ghost's production configuration (its passwords)",
        Holding::LiteralSecret,
    ),
    // Servers' configurations that hold their secrets written out, and that projects also keep
    // as templates (Synapse's `homeserver.yaml`, OpenLDAP's `slapd.conf` and its `rootpw`,
    // Nextcloud's `config.php`, New Relic's agent configuration and its license key).
    (
        "**/homeserver.yaml",
        "Synapse's configuration (its secrets)",
        Holding::LiteralSecret,
    ),
    (
        "**/{openldap,ldap}/slapd.conf",
        "OpenLDAP's configuration (its rootpw)",
        Holding::LiteralSecret,
    ),
    (
        "**/nextcloud/config/config.php",
        "Nextcloud's configuration (its secrets)",
        Holding::LiteralSecret,
    ),
    (
        "**/newrelic-infra.yml",
        "New Relic's agent configuration (its license key)",
        Holding::LiteralSecret,
    ),
    // Airflow's configuration holds its Fernet key and its database's connection.
    (
        "**/airflow.cfg",
        "Airflow's configuration (its Fernet key)",
        Holding::LiteralSecret,
    ),
    // Django projects keep the secret key and the database's password out of the repository in
    // a `local_settings.py` imported at the end of `settings.py`; some write only debug flags
    // there.
    (
        "**/local_settings.py",
        "a Django project's local settings (its secret key)",
        Holding::LiteralSecret,
    ),
];

/// File names matched with their case, where a folder of the same name in another case is
/// common in source trees (`src/cookies/`): Chromium's and Electron apps' cookie stores sit at
/// the top of their folder in some of them (Opera, Slack).
pub(super) const EXACT_NAMES: &[(&str, &str)] = &[
    ("Cookies", "a browser's or an Electron app's cookies"),
    (
        "Cookies-journal",
        "a browser's or an Electron app's cookies",
    ),
];
/// Names that are public halves or a tool's harmless files, never credentials, whatever rule
/// above their name also meets. (Templates are found by [`is_template`].)
pub(super) const NOT_CREDENTIALS: &[&str] = &[
    "**/*.pub",
    "**/*public*.pem",
    "**/*public*.key",
    "**/*{public,pub,verification,verify}[-_]key.bin",
    "**/.ssh/known_hosts",
    "**/.ssh/known_hosts.old",
    // Java trust stores hold only the certificates a client trusts, which anyone may read (a
    // key store beside one stays denied).
    "**/*truststore*.{jks,p12,pfx,bcfks}",
    "**/cacerts",
    "**/cacerts.{jks,p12}",
    // Certbot's own options, beside its plugins' credentials; a CA file or chain beside
    // HAProxy's bundles.
    "**/letsencrypt/cli.ini",
    "**/haproxy/**/{ca,ca[-_]*,*[-_]ca,*chain}.pem",
    // A pod's service account folder holds the cluster's CA certificate and the namespace's
    // name beside its token: both public.
    "**/secrets/kubernetes.io/serviceaccount/{ca.crt,namespace}",
    // Kubernetes manifests that hold no secret value: a SealedSecret (encrypted to the
    // cluster's key) and an ExternalSecret (a reference to a secret store).
    "**/{sealed,external}[-_]{secret,secrets}.{yaml,yml}",
    // macOS's keychain of the root certificates it trusts.
    "**/SystemRootCertificates.keychain",
    // kubectl's caches of the API server's discovery documents.
    "**/.kube/cache/**",
    "**/.kube/http-cache/**",
    // A Helm chart's templates render Secrets from values; they hold none.
    "**/templates/**/*secret*.{yaml,yml,tpl}",
    // update-notifier's records of the latest versions, beside configstore's logins.
    "**/configstore/update-notifier-*.json",
    // The flags kubeadm writes for the kubelet (`kubeadm-flags.env`), in the kubelet's own folder:
    // command-line options, named like an environment file.
    "**/kubelet/*-flags.env",
    // The OCI command line's defaults and aliases, beside its keys and tokens.
    "**/.oci/oci_cli_rc",
    // CI workflows name their secrets (`${{ secrets.TOKEN }}`), whatever the workflow is called
    // (`rotate-secrets.yml`); a value written into one is the scan's to find.
    "**/.github/workflows/*.{yml,yaml}",
    // Test doubles named for what they stand in for (`fake_token.txt`, `dummy-credentials.json`,
    // `mock_id_rsa`).
    "**/{fake,dummy,mock}[-_]*",
];

/// The words that make a name a template: `.env.example`, `credentials.json.template`,
/// `.env.tpl` (1Password), `.env.j2` (Ansible), `dot_netrc.tmpl` (chezmoi).
const TEMPLATE_WORDS: &[&str] = &["example", "sample", "template", "dist", "tpl", "tmpl", "j2"];

/// Whether the file name `name` is a template of a credential file: a template word in its last
/// two dot-separated parts, after its stem (`.env.example`, `.env.example.local`,
/// `service-account.example.json`), or an environment file whose stem is one (`example.env`,
/// `sample.prod.env`). A name with more parts after the word (`mail.example.org.key`, a key named
/// for its domain) is not one.
pub(super) fn is_template(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    let parts: Vec<&str> = lower.trim_start_matches('.').split('.').collect();
    let is_word = |part: &str| TEMPLATE_WORDS.contains(&part);
    let last_two = parts.len().saturating_sub(2).max(1);
    if parts[last_two..].iter().any(|part| is_word(part)) {
        return true;
    }
    parts.len() >= 2 && is_word(parts[0]) && parts.last() == Some(&"env")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn templates_are_known_by_a_word_near_the_end_of_their_name() {
        for name in [
            ".env.example",
            ".env.sample",
            ".env.example.local",
            ".env.tpl",
            ".env.j2",
            "service-account.example.json",
            "credentials.json.template",
            "phpunit.xml.dist",
            "example.env",
            "sample.prod.env",
        ] {
            assert!(is_template(name), "{name}");
        }
        for name in [
            ".env",
            "example.com.key",
            "mail.example.org.key",
            "examples.env",
            "prod.env",
            "sample",
            "template.key",
        ] {
            assert!(!is_template(name), "{name}");
        }
    }
}
