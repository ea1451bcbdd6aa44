// compose-check loads a Compose file with Docker Compose v2's own loader (compose-go), the way
// `docker compose config` would: project directory = the file's directory, variables from the
// environment and a .env file there. It prints each service with its dependencies as JSON, or
// the loader's error and exit status 1. Usage: compose-check [docker-compose.yml]
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/compose-spec/compose-go/v2/cli"
)

type service struct {
	Image     string            `json:"image,omitempty"`
	DependsOn map[string]string `json:"depends_on,omitempty"`
	Volumes   []string          `json:"volumes,omitempty"`
	// Copies compose starts (deploy.replicas or scale), and published ports as host_ip:published:target.
	Replicas int      `json:"replicas"`
	Ports    []string `json:"ports,omitempty"`
	// The environment as the container gets it, variables interpolated (nil: set without a value).
	Environment map[string]*string `json:"environment,omitempty"`
}

func main() {
	file := "docker-compose.yml"
	if len(os.Args) > 1 {
		file = os.Args[1]
	}
	if err := run(file); err != nil {
		fmt.Fprintf(os.Stderr, "compose-check: %v\n", err)
		os.Exit(1)
	}
}

func run(file string) error {
	options, err := cli.NewProjectOptions([]string{file},
		cli.WithWorkingDirectory(filepath.Dir(file)), cli.WithOsEnv, cli.WithDotEnv)
	if err != nil {
		return err
	}
	project, err := options.LoadProject(context.Background())
	if err != nil {
		return err
	}
	services := map[string]service{}
	for name, s := range project.Services {
		deps := map[string]string{}
		for dep, d := range s.DependsOn {
			deps[dep] = d.Condition
		}
		var volumes []string
		for _, v := range s.Volumes {
			volumes = append(volumes, v.Source+":"+v.Target)
		}
		var ports []string
		for _, p := range s.Ports {
			ports = append(ports, fmt.Sprintf("%s:%s:%d", p.HostIP, p.Published, p.Target))
		}
		services[name] = service{Image: s.Image, DependsOn: deps, Volumes: volumes, Replicas: s.GetScale(), Ports: ports, Environment: s.Environment}
	}
	out, err := json.MarshalIndent(map[string]any{"name": project.Name, "services": services}, "", "  ")
	if err != nil {
		return err
	}
	fmt.Println(string(out))
	return nil
}
